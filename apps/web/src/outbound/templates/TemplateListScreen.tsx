import { useTranslation } from 'react-i18next';
import type { AppRoute, OutboundTemplateView } from '@centralita/contracts';
import { AdminListPage } from '../../admin/AdminListPage';
import { formatDateTime, formatNullable } from '../../format/format';
import { TEMPLATE_FORM_PATH, TEMPLATES_RESOURCE } from './templates-api';
import './templates.css';
import { ChannelTemplatesPanel } from '../message-campaigns/ChannelTemplatesPanel';

/** /OutboundCampaign/CreateTemplates: the tenant's outbound templates (search, paging, edit, delete with confirmation, history). */
export function TemplateListScreen({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <div className="page outbound-templates" data-testid="outbound-templates">
      <AdminListPage<OutboundTemplateView>
        route={route}
        resource={TEMPLATES_RESOURCE}
        auditType="outbound_template"
        addPath={TEMPLATE_FORM_PATH}
        editPath={TEMPLATE_FORM_PATH}
        describe={(row) => row.name}
        deleteKey="outboundTemplates.list.confirmDelete"
        columns={[
          { field: 'name', header: t('outboundTemplates.list.name'), sortable: true, body: (row) => <strong>{row.name}</strong> },
          {
            field: 'description',
            header: t('outboundTemplates.list.description'),
            body: (row) => <span className="tpl-list__description">{formatNullable(row.description, t)}</span>,
          },
          {
            field: 'parameters',
            header: t('outboundTemplates.list.parameters'),
            body: (row) =>
              row.parameters.length === 0 ? (
                formatNullable(null, t)
              ) : (
                <span className="tpl-chips">
                  {row.parameters.map((parameter) => (
                    <code key={parameter.key} className="tpl-chip" title={t(`outboundTemplates.sources.${parameter.source}`)}>
                      {parameter.key}
                    </code>
                  ))}
                </span>
              ),
          },
          { field: 'campaignCount', header: t('outboundTemplates.list.campaigns'), style: { width: '8rem' } },
          {
            field: 'updatedAt',
            header: t('outboundTemplates.list.updatedAt'),
            sortable: true,
            style: { width: '11rem' },
            body: (row) => formatDateTime(row.updatedAt, t),
          },
        ]}
      />
      <ChannelTemplatesPanel />
    </div>
  );
}
