import { useCallback, useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import {
  ATTENTION_LINE_CHANNELS,
  ATTENTION_LINE_TYPES,
  LINE_PRIORITY_MAX,
  LINE_QUEUE_TIMEOUT_RANGE,
  LINE_CHATS_DURING_CALL_MAX,
  ROUTING_POLICIES,
  validateAttentionLine,
  type AppRoute,
  type AttentionLineSummary,
  type BusinessHoursWindow,
} from '@centralita/contracts';
import { displayChannel } from '@centralita/contracts';
import { useApi } from '../../app/ServicesContext';
import { formatNullable } from '../../format/format';
import { businessHoursProblems, hoursToRows, rowsToHours, type DayHours } from '../admin-logic';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { CheckInput, FieldShell, NumberInput, SelectInput, TextInput } from '../fields';
import { useAdminForm } from '../useAdminForm';

const LIST = '/attentionList/attentionList';
const FORM = '/attentionList/attentionEdit';
const WEB_CHAT_PAGE = '/attentionList/webChat';

export function AttentionLineListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <AdminListPage<AttentionLineSummary>
      route={route}
      // A web-chat line's embed snippet, direct link and preview.
      rowActions={(row) =>
        row.channel === 'WebChat' ? (
          <Button
            icon="pi pi-code"
            rounded
            text
            severity="help"
            aria-label={t('admin.webchat.open')}
            tooltip={t('admin.webchat.open')}
            data-testid="line-webchat"
            data-id={row.id}
            onClick={() => navigate(`${WEB_CHAT_PAGE}?id=${encodeURIComponent(row.id)}`)}
          />
        ) : null
      }
      resource="attention-lines"
      auditType="attention-line"
      addPath={FORM}
      editPath={FORM}
      describe={(row) => row.name}
      columns={[
        { field: 'name', header: t('admin.lines.name'), sortable: true },
        {
          field: 'type',
          header: t('admin.lines.type'),
          sortable: true,
          body: (row) => t(`admin.lines.types.${row.type}`, { defaultValue: row.type }),
        },
        {
          field: 'channel',
          header: t('admin.lines.channel'),
          sortable: true,
          body: (row) => <span className="chip">{displayChannel(row.channel)}</span>,
        },
        {
          field: 'businessUnit',
          header: t('admin.lines.businessUnit'),
          sortable: true,
          body: (row) => formatNullable(row.businessUnit, t),
        },
        { field: 'serviceType', header: t('admin.lines.serviceType'), sortable: true, body: (row) => formatNullable(row.serviceType, t) },
        {
          field: 'internal',
          header: t('admin.lines.audience'),
          sortable: true,
          body: (row) => t(row.internal ? 'admin.lines.internal' : 'admin.lines.external'),
        },
      ]}
    />
  );
}

type LineValues = {
  name: string;
  type: string;
  channel: string;
  businessUnit: string;
  originType: string;
  originLine: string;
  serviceType: string;
  internal: boolean;
  hours: DayHours[];
  pollId: string;
  campaignId: string;
  routingPolicy: string;
  priority: number | null;
  /** Empty: the account's maximum queue wait. */
  queueTimeoutSeconds: number | null;
  /** Blended agents: chats an agent on a call may hold (0 = none). */
  chatsDuringCall: number | null;
  offerCallsWithChats: boolean;
};
const EMPTY: LineValues = {
  name: '',
  type: 'inbound',
  channel: 'WebChat',
  businessUnit: '',
  originType: '',
  originLine: '',
  serviceType: '',
  internal: false,
  hours: hoursToRows([]),
  pollId: '',
  campaignId: '',
  routingPolicy: 'longest-idle',
  priority: 0,
  queueTimeoutSeconds: null,
  chatsDuringCall: 0,
  offerCallsWithChats: false,
};

const toInput = (v: LineValues) => ({
  name: v.name,
  type: v.type,
  channel: v.channel,
  businessUnit: v.businessUnit || null,
  originType: v.originType || null,
  originLine: v.originLine || null,
  serviceType: v.serviceType || null,
  internal: v.internal,
  businessHours: rowsToHours(v.hours) as BusinessHoursWindow[],
  pollId: v.pollId || null,
  campaignId: v.campaignId || null,
  routingPolicy: v.routingPolicy as AttentionLineSummary['routingPolicy'],
  priority: v.priority as number,
  queueTimeoutSeconds: v.queueTimeoutSeconds,
  chatsDuringCall: v.chatsDuringCall as number,
  offerCallsWithChats: v.offerCallsWithChats,
});

export function AttentionLineFormPage({ route }: { route: AppRoute }) {
  const { t, i18n } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const form = useAdminForm<LineValues>(
    EMPTY,
    useCallback(
      (v: LineValues) =>
        validateAttentionLine(toInput(v)).map((issue) => (issue.field === 'businessHours' ? { ...issue, field: 'hours' } : issue)),
      [],
    ),
  );
  const { values, set, blur, errorFor } = form;
  const weekday = new Intl.DateTimeFormat(i18n.language === 'sr' ? 'sr-Latn' : i18n.language, { weekday: 'long' });
  // 2023-01-01 was a Sunday: day n of the week is January 1 + n.
  const dayName = (day: number) => weekday.format(new Date(2023, 0, 1 + day));
  // The shared rule says only that some window is wrong; name each day, its times and the fix.
  const hoursError = errorFor('hours')
    ? businessHoursProblems(values.hours)
        .map(({ day, problem, from, to }) => t(`admin.lines.hoursProblems.${problem}`, { day: dayName(day), from, to }))
        .join(' ') || errorFor('hours')
    : null;
  const setDay = (day: number, patch: Partial<DayHours>) =>
    set('hours')(values.hours.map((row) => (row.day === day ? { ...row, ...patch } : row)));
  const [polls, setPolls] = useState<{ value: string; label: string }[]>([]);
  const [campaigns, setCampaigns] = useState<{ value: string; label: string }[]>([]);
  useEffect(() => {
    const toOptions = (items: { id: string; name: string }[]) => items.map((item) => ({ value: item.id, label: item.name }));
    api.admin
      .pollOptions()
      .then((items) => setPolls(toOptions(items)))
      .catch(() => undefined);
    api.admin
      .campaignOptions()
      .then((items) => setCampaigns(toOptions(items)))
      .catch(() => undefined);
  }, [api]);

  return (
    <AdminFormPage
      route={route}
      resource="attention-lines"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.get<AttentionLineSummary>('attention-lines', rowId);
        return {
          name: row.name,
          type: row.type,
          channel: row.channel,
          businessUnit: row.businessUnit ?? '',
          originType: row.originType ?? '',
          originLine: row.originLine ?? '',
          serviceType: row.serviceType ?? '',
          internal: row.internal,
          hours: hoursToRows(row.businessHours),
          pollId: row.pollId ?? '',
          campaignId: row.campaignId ?? '',
          routingPolicy: row.routingPolicy,
          priority: row.priority,
          queueTimeoutSeconds: row.queueTimeoutSeconds,
          chatsDuringCall: row.chatsDuringCall,
          offerCallsWithChats: row.offerCallsWithChats,
        };
      }}
      toBody={toInput}
    >
      <TextInput
        id="line-name"
        label={t('admin.lines.name')}
        value={values.name}
        onChange={set('name')}
        onBlur={blur('name')}
        error={errorFor('name')}
      />
      <SelectInput
        id="line-type"
        label={t('admin.lines.type')}
        value={values.type}
        options={ATTENTION_LINE_TYPES.map((type) => ({ value: type, label: t(`admin.lines.types.${type}`) }))}
        onChange={set('type')}
        error={errorFor('type')}
      />
      <SelectInput
        id="line-channel"
        label={t('admin.lines.channel')}
        value={values.channel}
        options={ATTENTION_LINE_CHANNELS.map((channel) => ({ value: channel, label: channel }))}
        onChange={set('channel')}
        error={errorFor('channel')}
      />
      <TextInput
        id="line-business-unit"
        label={t('admin.lines.businessUnit')}
        value={values.businessUnit}
        onChange={set('businessUnit')}
        error={errorFor('businessUnit')}
      />
      <TextInput
        id="line-origin-type"
        label={t('admin.lines.originType')}
        value={values.originType}
        onChange={set('originType')}
        error={errorFor('originType')}
      />
      <TextInput
        id="line-origin-line"
        label={t('admin.lines.originLine')}
        value={values.originLine}
        onChange={set('originLine')}
        error={errorFor('originLine')}
      />
      <TextInput
        id="line-service-type"
        label={t('admin.lines.serviceType')}
        value={values.serviceType}
        onChange={set('serviceType')}
        error={errorFor('serviceType')}
      />
      <div className="admin-field admin-field--check">
        <CheckInput id="line-internal" label={t('admin.lines.internalLabel')} checked={values.internal} onChange={set('internal')} />
      </div>
      <FieldShell id="line-hours" label={t('admin.lines.businessHours')} hint={t('admin.lines.businessHoursHint')} error={hoursError} wide>
        <div className="admin-hours" data-testid="line-hours">
          {values.hours.map((row) => (
            <div key={row.day} className="admin-hours__row">
              <CheckInput
                id={`line-day-${row.day}`}
                label={dayName(row.day)}
                checked={row.open}
                onChange={(open) => setDay(row.day, { open })}
              />
              <InputText
                type="time"
                aria-label={`${dayName(row.day)} ${t('admin.lines.opens')}`}
                value={row.from}
                disabled={!row.open}
                onChange={(e) => setDay(row.day, { from: e.target.value })}
              />
              <span className="muted">–</span>
              <InputText
                type="time"
                aria-label={`${dayName(row.day)} ${t('admin.lines.closes')}`}
                value={row.to}
                disabled={!row.open}
                onChange={(e) => setDay(row.day, { to: e.target.value })}
              />
            </div>
          ))}
        </div>
      </FieldShell>
      {id ? <LineBotLink lineId={id} /> : null}
      <SelectInput
        id="line-poll"
        label={t('admin.lines.poll')}
        hint={t('admin.lines.pollHint')}
        value={values.pollId}
        options={[{ value: '', label: t('admin.lines.noPoll') }, ...polls]}
        placeholder={t('admin.lines.noPoll')}
        onChange={set('pollId')}
        error={errorFor('pollId')}
      />
      <SelectInput
        id="line-campaign"
        label={t('admin.lines.campaign')}
        hint={t('admin.lines.campaignHint')}
        value={values.campaignId}
        options={[{ value: '', label: t('admin.lines.noCampaign') }, ...campaigns]}
        placeholder={t('admin.lines.noCampaign')}
        onChange={set('campaignId')}
        error={errorFor('campaignId')}
      />
      <SelectInput
        id="line-routing-policy"
        label={t('admin.lines.routingPolicy')}
        hint={t('admin.lines.routingPolicyHint')}
        value={values.routingPolicy}
        options={ROUTING_POLICIES.map((policy) => ({ value: policy, label: t(`admin.lines.routingPolicies.${policy}`) }))}
        onChange={set('routingPolicy')}
        error={errorFor('routingPolicy')}
      />
      <NumberInput
        id="line-priority"
        label={t('admin.lines.priority')}
        hint={t('admin.lines.priorityHint', { max: LINE_PRIORITY_MAX })}
        value={values.priority}
        min={0}
        max={LINE_PRIORITY_MAX}
        onChange={set('priority')}
        onBlur={blur('priority')}
        error={errorFor('priority')}
      />
      <NumberInput
        id="line-queue-timeout"
        label={t('admin.lines.queueTimeout')}
        hint={t('admin.lines.queueTimeoutHint', LINE_QUEUE_TIMEOUT_RANGE)}
        value={values.queueTimeoutSeconds}
        min={LINE_QUEUE_TIMEOUT_RANGE.min}
        max={LINE_QUEUE_TIMEOUT_RANGE.max}
        onChange={set('queueTimeoutSeconds')}
        onBlur={blur('queueTimeoutSeconds')}
        error={errorFor('queueTimeoutSeconds')}
      />
      <NumberInput
        id="line-chats-during-call"
        label={t('admin.lines.chatsDuringCall')}
        hint={t('admin.lines.chatsDuringCallHint', { max: LINE_CHATS_DURING_CALL_MAX })}
        value={values.chatsDuringCall}
        min={0}
        max={LINE_CHATS_DURING_CALL_MAX}
        onChange={set('chatsDuringCall')}
        onBlur={blur('chatsDuringCall')}
        error={errorFor('chatsDuringCall')}
      />
      <CheckInput
        id="line-offer-calls-with-chats"
        label={t('admin.lines.offerCallsWithChats')}
        checked={values.offerCallsWithChats}
        onChange={set('offerCallsWithChats')}
      />
    </AdminFormPage>
  );
}

/** The line's bot (issue 23) has its own screen: the settings, the test panel and the unanswered questions. */
function LineBotLink({ lineId }: { lineId: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <FieldShell id="line-bot" label={t('bot.lineForm.label')} hint={t('bot.lineForm.hint')}>
      <Button
        type="button"
        icon="pi pi-android"
        label={t('bot.lineForm.open')}
        outlined
        onClick={() => navigate(`/qna/bot?line=${encodeURIComponent(lineId)}`)}
        data-testid="line-bot-link"
      />
    </FieldShell>
  );
}
