import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { AppRoute } from '@centralita/contracts';

type Screen = LazyExoticComponent<ComponentType<{ route: AppRoute }>>;
const named = <M,>(load: () => Promise<M>, name: keyof M): Screen =>
  lazy(async () => ({ default: (await load())[name] as ComponentType<{ route: AppRoute }> }));

const list = () => import('./CampaignListScreen');
const form = () => import('./CampaignFormScreen');
const templateList = () => import('./templates/TemplateListScreen');
const templateForm = () => import('./templates/TemplateFormScreen');

/** Console routes served by the outbound area (spec §2), each loaded on demand with React.lazy. */
export const OUTBOUND_SCREENS: Record<string, ComponentType<{ route: AppRoute }>> = {
  '/OutboundCampaign/CampaignList': named(list, 'CampaignListScreen'),
  '/OutboundCampaign/SubmitOutboundCampaing': named(form, 'CampaignFormScreen'),
  '/OutboundCampaign/CreateTemplates': named(templateList, 'TemplateListScreen'),
  '/OutboundCampaign/SubmitTemplates': named(templateForm, 'TemplateFormScreen'),
};
