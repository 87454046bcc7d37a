import { useCallback, useEffect, useMemo, useState } from 'react';
import { InputText } from 'primereact/inputtext';
import { Checkbox } from 'primereact/checkbox';
import { useTranslation } from 'react-i18next';
import {
  CALLING_DAYS,
  DEFAULT_CALLING_WINDOWS,
  DEFAULT_RETRY_DELAYS,
  DIALER_MODES,
  OUTBOUND_LIMITS,
  RETRY_OUTCOMES,
  validateDialerCampaign,
  type AppRoute,
  type CallingDay,
  type CallingWindowsInput,
  type DialerCampaignView,
  type DialerMode,
  type OutboundFormOptions,
  type RetryOutcome,
} from '@centralita/contracts';
import { useServices } from '../app/ServicesContext';
import { AdminFormPage, useEditId } from '../admin/AdminFormPage';
import { FieldShell, MultiSelectInput, NumberInput, SelectInput, TextInput } from '../admin/fields';
import { Dropdown } from 'primereact/dropdown';
import { useAdminForm } from '../admin/useAdminForm';
import { createOutboundApi } from './outbound-api';
import { createTemplatesApi } from './templates/templates-api';
import './outbound.css';

const LIST = '/OutboundCampaign/CampaignList';

type DayWindow = { enabled: boolean; from: string; to: string };

type Values = {
  name: string;
  phoneListId: string;
  templateId: string;
  mode: DialerMode;
  abandonCapPercent: number | null;
  abandonThresholdMs: number | null;
  maxAttempts: number | null;
  retryMinutes: Record<RetryOutcome, number | null>;
  days: Record<CallingDay, DayWindow>;
  scheduleFrom: string;
  scheduleTo: string;
  callerId: string;
  trunkId: string;
  agentIds: string[];
};

function daysFrom(windows: CallingWindowsInput): Record<CallingDay, DayWindow> {
  return Object.fromEntries(
    CALLING_DAYS.map((day) => {
      const range = windows[day]?.[0];
      return [day, { enabled: !!range, from: range?.from ?? '09:00', to: range?.to ?? '21:00' }];
    }),
  ) as Record<CallingDay, DayWindow>;
}

function minutesFrom(delays: Partial<Record<RetryOutcome, number>>): Record<RetryOutcome, number | null> {
  return Object.fromEntries(
    RETRY_OUTCOMES.map((outcome) => [outcome, delays[outcome] === undefined ? null : Math.round(delays[outcome]! / 60)]),
  ) as Record<RetryOutcome, number | null>;
}

const EMPTY: Values = {
  name: '',
  phoneListId: '',
  templateId: '',
  mode: 'progressive',
  abandonCapPercent: OUTBOUND_LIMITS.abandonCapDefault,
  abandonThresholdMs: OUTBOUND_LIMITS.abandonThresholdMsDefault,
  maxAttempts: OUTBOUND_LIMITS.maxAttemptsDefault,
  retryMinutes: minutesFrom(DEFAULT_RETRY_DELAYS),
  days: daysFrom(DEFAULT_CALLING_WINDOWS),
  scheduleFrom: '',
  scheduleTo: '',
  callerId: '',
  trunkId: '',
  agentIds: [],
};

/** datetime-local value (local time) ↔ ISO string. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : null);

function toBody(values: Values) {
  return {
    name: values.name.trim(),
    phoneListId: values.phoneListId,
    templateId: values.templateId || null,
    mode: values.mode,
    abandonCapPercent: values.abandonCapPercent ?? undefined,
    abandonThresholdMs: values.abandonThresholdMs ?? undefined,
    maxAttempts: values.maxAttempts ?? undefined,
    retryDelays: Object.fromEntries(
      RETRY_OUTCOMES.filter((outcome) => values.retryMinutes[outcome] !== null).map((outcome) => [
        outcome,
        (values.retryMinutes[outcome] ?? 0) * 60,
      ]),
    ),
    callingWindows: Object.fromEntries(
      CALLING_DAYS.filter((day) => values.days[day].enabled).map((day) => [
        day,
        [{ from: values.days[day].from, to: values.days[day].to }],
      ]),
    ),
    scheduleFrom: fromLocalInput(values.scheduleFrom),
    scheduleTo: fromLocalInput(values.scheduleTo),
    callerId: values.callerId.trim() || null,
    trunkId: values.trunkId || null,
    agentIds: values.agentIds,
  };
}

/** /OutboundCampaign/SubmitOutboundCampaing: create or edit a dialing campaign (phone list, mode, caps, retries, windows, schedule). */
export function CampaignFormScreen({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { client, api } = useServices();
  const outbound = useMemo(() => createOutboundApi(client), [client]);
  const id = useEditId();
  const [lists, setLists] = useState<{ value: string; label: string }[]>([]);
  const [templates, setTemplates] = useState<{ value: string; label: string }[]>([]);
  useEffect(() => {
    void createTemplatesApi(client)
      .options()
      .then((page) => setTemplates(page.items.map((item) => ({ value: item.id, label: item.name }))))
      .catch(() => setTemplates([]));
  }, [client]);
  const [pickers, setPickers] = useState<OutboundFormOptions | null>(null);
  const form = useAdminForm<Values>(
    EMPTY,
    useCallback((values: Values) => validateDialerCampaign(toBody(values)), []),
  );
  const { values, set, blur, errorFor, setValues } = form;
  useEffect(() => {
    void outbound
      .formOptions()
      .then((options) => {
        setPickers(options);
        setLists(options.phoneLists.map((list) => ({ value: list.id, label: list.name })));
      })
      .catch(() => {
        setPickers({ phoneLists: [], trunks: [], agents: [] });
        setLists([]);
      });
  }, [outbound]);
  const trunkOptions = (pickers?.trunks ?? []).map((trunk) => ({
    value: trunk.id,
    label: trunk.active ? trunk.name : t('outbound.form.inactive', { name: trunk.name }),
  }));
  // Deactivated agents stay listed only while the campaign still names them, so an edit shows who they are.
  const agentOptions = (pickers?.agents ?? [])
    .filter((agent) => agent.active || values.agentIds.includes(agent.id))
    .map((agent) => ({ value: agent.id, label: agent.active ? agent.name : t('outbound.form.inactive', { name: agent.name }) }));

  const setDay = (day: CallingDay, patch: Partial<DayWindow>) =>
    setValues({ ...values, days: { ...values.days, [day]: { ...values.days[day], ...patch } } });
  const setRetry = (outcome: RetryOutcome, minutes: number | null) =>
    setValues({ ...values, retryMinutes: { ...values.retryMinutes, [outcome]: minutes } });

  return (
    <AdminFormPage
      route={route}
      resource="outbound/campaigns"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.get<DialerCampaignView>('outbound/campaigns', rowId);
        return {
          name: row.name,
          phoneListId: row.phoneListId,
          templateId: row.templateId ?? '',
          mode: row.mode,
          abandonCapPercent: row.abandonCapPercent,
          abandonThresholdMs: row.abandonThresholdMs,
          maxAttempts: row.maxAttempts,
          retryMinutes: minutesFrom(row.retryDelays),
          days: daysFrom(row.callingWindows),
          scheduleFrom: toLocalInput(row.scheduleFrom),
          scheduleTo: toLocalInput(row.scheduleTo),
          callerId: row.callerId ?? '',
          trunkId: row.trunkId ?? '',
          agentIds: row.agentIds ?? [],
        };
      }}
      toBody={toBody}
    >
      <TextInput
        id="outbound-name"
        label={t('outbound.fields.name')}
        value={values.name}
        onChange={set('name')}
        onBlur={blur('name')}
        error={errorFor('name')}
      />
      <SelectInput
        id="outbound-list"
        label={t('outbound.fields.phoneList')}
        value={values.phoneListId}
        options={lists}
        placeholder={lists.length === 0 ? t('outbound.form.noLists') : t('outbound.form.pickList')}
        onChange={set('phoneListId')}
        onBlur={blur('phoneListId')}
        error={errorFor('phoneListId')}
      />
      <SelectInput
        id="outbound-template"
        label={t('outboundTemplates.campaign.template')}
        hint={t('outboundTemplates.campaign.hint')}
        value={values.templateId}
        options={[{ value: '', label: t('outboundTemplates.campaign.none') }, ...templates]}
        placeholder={t('outboundTemplates.campaign.none')}
        onChange={set('templateId')}
        error={errorFor('templateId')}
      />
      <SelectInput
        id="outbound-mode"
        label={t('outbound.fields.mode')}
        hint={t(`outbound.modeHints.${values.mode}`)}
        value={values.mode}
        options={DIALER_MODES.map((mode) => ({ value: mode, label: t(`outbound.modes.${mode}`) }))}
        onChange={(value) => set('mode')(value as DialerMode)}
        error={errorFor('mode')}
      />
      <NumberInput
        id="outbound-cap"
        label={t('outbound.fields.abandonCap')}
        hint={t('outbound.form.capHint', { min: OUTBOUND_LIMITS.abandonCapMin, max: OUTBOUND_LIMITS.abandonCapMax })}
        value={values.abandonCapPercent}
        onChange={set('abandonCapPercent')}
        onBlur={blur('abandonCapPercent')}
        error={errorFor('abandonCapPercent')}
      />
      <NumberInput
        id="outbound-threshold"
        label={t('outbound.fields.abandonThreshold')}
        hint={t('outbound.form.thresholdHint')}
        value={values.abandonThresholdMs}
        onChange={set('abandonThresholdMs')}
        onBlur={blur('abandonThresholdMs')}
        error={errorFor('abandonThresholdMs')}
      />
      <NumberInput
        id="outbound-attempts"
        label={t('outbound.fields.maxAttempts')}
        value={values.maxAttempts}
        onChange={set('maxAttempts')}
        onBlur={blur('maxAttempts')}
        error={errorFor('maxAttempts')}
      />
      <TextInput
        id="outbound-caller"
        label={t('outbound.fields.callerId')}
        value={values.callerId}
        onChange={set('callerId')}
        error={errorFor('callerId')}
      />
      <FieldShell id="outbound-trunk" label={t('outbound.fields.trunk')} hint={t('outbound.form.trunkHint')} error={errorFor('trunkId')}>
        <Dropdown
          inputId="outbound-trunk"
          data-testid="outbound-trunk"
          value={values.trunkId || null}
          options={trunkOptions}
          optionLabel="label"
          optionValue="value"
          placeholder={pickers && trunkOptions.length === 0 ? t('outbound.form.noTrunks') : t('outbound.form.pickTrunk')}
          emptyMessage={t('outbound.form.noTrunks')}
          showClear
          onChange={(event) => set('trunkId')((event.value as string | null) ?? '')}
          className="admin-select"
        />
      </FieldShell>
      <MultiSelectInput
        id="outbound-agents"
        label={t('outbound.fields.agents')}
        hint={t('outbound.form.agentsHint')}
        value={values.agentIds}
        options={agentOptions}
        placeholder={t('outbound.form.anyAgent')}
        onChange={set('agentIds')}
        error={errorFor('agentIds')}
      />
      <FieldShell id="outbound-schedule-from" label={t('outbound.fields.scheduleFrom')} error={errorFor('scheduleFrom')}>
        <InputText
          id="outbound-schedule-from"
          type="datetime-local"
          value={values.scheduleFrom}
          onChange={(e) => set('scheduleFrom')(e.target.value)}
        />
      </FieldShell>
      <FieldShell id="outbound-schedule-to" label={t('outbound.fields.scheduleTo')} error={errorFor('scheduleTo')}>
        <InputText
          id="outbound-schedule-to"
          type="datetime-local"
          value={values.scheduleTo}
          onChange={(e) => set('scheduleTo')(e.target.value)}
        />
      </FieldShell>
      <FieldShell
        id="outbound-retries"
        label={t('outbound.form.retries')}
        hint={t('outbound.form.retriesHint')}
        error={errorFor('retryDelays' as keyof Values)}
        wide
      >
        <div className="outbound-retries">
          {RETRY_OUTCOMES.map((outcome) => (
            <NumberInput
              key={outcome}
              id={`outbound-retry-${outcome}`}
              label={t(`outbound.callStatus.${outcome}`)}
              value={values.retryMinutes[outcome]}
              onChange={(value) => setRetry(outcome, value)}
            />
          ))}
        </div>
      </FieldShell>
      <FieldShell
        id="outbound-windows"
        label={t('outbound.form.windows')}
        hint={t('outbound.form.windowsHint')}
        error={errorFor('callingWindows' as keyof Values)}
        wide
      >
        <div className="outbound-windows">
          {CALLING_DAYS.map((day) => (
            <div key={day} className="outbound-window">
              <Checkbox inputId={`day-${day}`} checked={values.days[day].enabled} onChange={(e) => setDay(day, { enabled: !!e.checked })} />
              <label htmlFor={`day-${day}`}>{t(`outbound.days.${day}`)}</label>
              <InputText
                type="time"
                aria-label={t('outbound.form.from')}
                value={values.days[day].from}
                disabled={!values.days[day].enabled}
                onChange={(e) => setDay(day, { from: e.target.value })}
              />
              <InputText
                type="time"
                aria-label={t('outbound.form.to')}
                value={values.days[day].to}
                disabled={!values.days[day].enabled}
                onChange={(e) => setDay(day, { to: e.target.value })}
              />
            </div>
          ))}
        </div>
      </FieldShell>
    </AdminFormPage>
  );
}
