import { useCallback, useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import {
  INBOUND_TARGET_TYPES,
  TRUNK_LIMITS,
  TRUNK_TRANSPORTS,
  parseAllowedSources,
  validateInboundNumber,
  validateTrunk,
  type AppRoute,
  type InboundNumber,
  type InboundTargetType,
  type IvrDestinationOptions,
  type RuleIssue,
  type TrunkSummary,
  type TrunkTransport,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useApi, useServices } from '../../app/ServicesContext';
import { formatActive, formatNullable } from '../../format/format';
import { useToast } from '../../toast/ToastProvider';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { CheckInput, NumberInput, PasswordInput, SelectInput, TextArea, TextInput } from '../fields';
import { createTelephonyApi } from '../telephony/telephony-api';
import { useAdminForm } from '../useAdminForm';
import './trunk-screens.css';

const PATH = '/settings/troncals';

/** /settings/troncals is one route: the list, or the form with ?id= (edit) or ?new=1 (add). */
export function TrunkPage({ route }: { route: AppRoute }) {
  const [params] = useSearchParams();
  const editing = params.has('id') || params.has('new');
  return editing ? <TrunkForm route={route} key={params.toString()} /> : <TrunkList route={route} />;
}

function TrunkList({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <AdminListPage<TrunkSummary>
      route={route}
      resource="trunks"
      auditType="trunk"
      addPath={`${PATH}?new=1`}
      editPath={PATH}
      describe={(row) => row.name}
      deleteKey="telephony.trunks.confirmDelete"
      columns={[
        { field: 'name', header: t('telephony.trunks.name'), sortable: true, body: (row) => <strong>{row.name}</strong> },
        {
          field: 'host',
          header: t('telephony.trunks.endpoint'),
          sortable: true,
          body: (row) => (
            <code>
              {row.host}:{row.port}
            </code>
          ),
        },
        {
          field: 'transport',
          header: t('telephony.trunks.transport'),
          sortable: true,
          style: { width: '8rem' },
          body: (row) => <span className="chip">{row.transport.toUpperCase()}</span>,
        },
        {
          field: 'username',
          header: t('telephony.trunks.username'),
          body: (row) => (
            <span>
              {formatNullable(row.username, t)}{' '}
              <i
                className={row.hasPassword ? 'pi pi-lock' : 'pi pi-lock-open'}
                title={row.hasPassword ? t('telephony.trunks.passwordSet') : t('telephony.trunks.passwordNone')}
                aria-label={row.hasPassword ? t('telephony.trunks.passwordSet') : t('telephony.trunks.passwordNone')}
              />
            </span>
          ),
        },
        { field: 'callerId', header: t('telephony.trunks.callerId'), body: (row) => formatNullable(row.callerId, t) },
        {
          field: 'maxConcurrentCalls',
          header: t('telephony.trunks.maxConcurrentCalls'),
          sortable: true,
          style: { width: '10rem' },
        },
        {
          field: 'active',
          header: t('telephony.trunks.active'),
          sortable: true,
          style: { width: '8rem' },
          body: (row) => <span className={row.active ? 'chip chip--success' : 'chip chip--muted'}>{formatActive(row.active, t)}</span>,
        },
      ]}
    />
  );
}

type TrunkValues = {
  name: string;
  host: string;
  port: number | null;
  transport: string;
  username: string;
  password: string;
  callerId: string;
  maxConcurrentCalls: number | null;
  active: boolean;
  countryCode: string;
  nationalPrefix: string;
  /** One entry per line (commas and spaces also separate): sent as a list. */
  allowedSources: string;
};
const EMPTY: TrunkValues = {
  name: '',
  host: '',
  port: TRUNK_LIMITS.defaultPort,
  transport: 'udp',
  username: '',
  password: '',
  callerId: '',
  maxConcurrentCalls: 10,
  active: true,
  countryCode: '',
  nationalPrefix: '',
  allowedSources: '',
};

function TrunkForm({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const [hasPassword, setHasPassword] = useState(false);
  const form = useAdminForm<TrunkValues>(
    EMPTY,
    useCallback((v: TrunkValues) => validateTrunk(v), []),
  );
  const { values, set, blur, errorFor } = form;
  return (
    <>
      <AdminFormPage
        route={route}
        resource="trunks"
        listPath={PATH}
        form={form}
        id={id}
        load={async (rowId) => {
          const row = await api.admin.get<TrunkSummary>('trunks', rowId);
          setHasPassword(row.hasPassword);
          return {
            name: row.name,
            host: row.host,
            port: row.port,
            transport: row.transport,
            username: row.username ?? '',
            password: '',
            callerId: row.callerId ?? '',
            maxConcurrentCalls: row.maxConcurrentCalls,
            active: row.active,
            countryCode: row.countryCode ?? '',
            nationalPrefix: row.nationalPrefix ?? '',
            allowedSources: (row.allowedSources ?? []).join('\n'),
          };
        }}
        toBody={(v) => ({
          ...v,
          transport: v.transport as TrunkTransport,
          username: v.username.trim() || null,
          callerId: v.callerId.trim() || null,
          countryCode: v.countryCode.trim() || null,
          nationalPrefix: v.nationalPrefix.trim() || null,
          allowedSources: parseAllowedSources(v.allowedSources) ?? [],
        })}
      >
        <TextInput
          id="trunk-name"
          label={t('telephony.trunks.name')}
          value={values.name}
          maxLength={TRUNK_LIMITS.nameMax}
          onChange={set('name')}
          onBlur={blur('name')}
          error={errorFor('name')}
        />
        <div className="admin-field admin-field--check">
          <CheckInput id="trunk-active" label={t('telephony.trunks.activeLabel')} checked={values.active} onChange={set('active')} />
        </div>
        <TextInput
          id="trunk-host"
          label={t('telephony.trunks.host')}
          value={values.host}
          maxLength={TRUNK_LIMITS.hostMax}
          onChange={set('host')}
          onBlur={blur('host')}
          error={errorFor('host')}
          hint={t('telephony.trunks.hostHint')}
        />
        <NumberInput
          id="trunk-port"
          label={t('telephony.trunks.port')}
          value={values.port}
          onChange={set('port')}
          onBlur={blur('port')}
          error={errorFor('port')}
          hint={t('telephony.trunks.portHint')}
        />
        <SelectInput
          id="trunk-transport"
          label={t('telephony.trunks.transport')}
          value={values.transport}
          options={TRUNK_TRANSPORTS.map((tr) => ({ value: tr, label: tr.toUpperCase() }))}
          onChange={set('transport')}
          onBlur={blur('transport')}
          error={errorFor('transport')}
        />
        <NumberInput
          id="trunk-max-calls"
          label={t('telephony.trunks.maxConcurrentCalls')}
          value={values.maxConcurrentCalls}
          onChange={set('maxConcurrentCalls')}
          onBlur={blur('maxConcurrentCalls')}
          error={errorFor('maxConcurrentCalls')}
          hint={t('telephony.trunks.maxCallsHint', { max: TRUNK_LIMITS.maxConcurrentCalls })}
        />
        <TextInput
          id="trunk-username"
          label={t('telephony.trunks.username')}
          value={values.username}
          maxLength={TRUNK_LIMITS.usernameMax}
          onChange={set('username')}
          onBlur={blur('username')}
          error={errorFor('username')}
        />
        <PasswordInput
          id="trunk-password"
          label={t('telephony.trunks.password')}
          value={values.password}
          onChange={set('password')}
          onBlur={blur('password')}
          error={errorFor('password')}
          hint={id && hasPassword ? t('telephony.trunks.passwordKeep') : t('telephony.trunks.passwordHint')}
        />
        <TextInput
          id="trunk-caller-id"
          label={t('telephony.trunks.callerId')}
          value={values.callerId}
          onChange={set('callerId')}
          onBlur={blur('callerId')}
          error={errorFor('callerId')}
          hint={t('telephony.trunks.callerIdHint')}
        />
        <TextInput
          id="trunk-country-code"
          label={t('telephony.trunks.countryCode')}
          value={values.countryCode}
          maxLength={3}
          onChange={set('countryCode')}
          onBlur={blur('countryCode')}
          error={errorFor('countryCode')}
          hint={t('telephony.trunks.countryCodeHint')}
        />
        <TextInput
          id="trunk-national-prefix"
          label={t('telephony.trunks.nationalPrefix')}
          value={values.nationalPrefix}
          maxLength={2}
          onChange={set('nationalPrefix')}
          onBlur={blur('nationalPrefix')}
          error={errorFor('nationalPrefix')}
          hint={t('telephony.trunks.nationalPrefixHint')}
        />
        <TextArea
          id="trunk-allowed-sources"
          label={t('telephony.trunks.allowedSources')}
          value={values.allowedSources}
          rows={3}
          onChange={set('allowedSources')}
          onBlur={blur('allowedSources')}
          error={errorFor('allowedSources')}
          hint={t('telephony.trunks.allowedSourcesHint')}
        />
      </AdminFormPage>
      {id ? <InboundNumbersSection trunkId={id} /> : <p className="muted trunk-numbers__later">{t('telephony.numbers.afterSave')}</p>}
    </>
  );
}

/** The called numbers this trunk answers, each sent to an IVR or a line (saved at once, apart from the form). */
function InboundNumbersSection({ trunkId }: { trunkId: string }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const telephony = useMemo(() => createTelephonyApi(client), [client]);
  const toast = useToast();
  const [rows, setRows] = useState<InboundNumber[] | null>(null);
  const [targets, setTargets] = useState<IvrDestinationOptions | null>(null);
  const [number, setNumber] = useState('');
  const [targetType, setTargetType] = useState<InboundTargetType>('ivr');
  const [targetId, setTargetId] = useState('');
  const [issues, setIssues] = useState<RuleIssue[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    Promise.all([telephony.inboundNumbers(trunkId), telephony.destinationOptions()])
      .then(([list, options]) => {
        if (!live) return;
        setRows(list);
        setTargets(options);
      })
      .catch((e: unknown) => live && setFailure(describeError(e, t)));
    return () => {
      live = false;
    };
  }, [telephony, trunkId, t]);

  const issueFor = (field: 'number' | 'targetId') =>
    issues.some((i) => i.field === field) ? t(`telephony.numbers.issues.${field}`) : null;
  const choices = (targetType === 'ivr' ? targets?.ivrs : targets?.attentionLines) ?? [];

  const add = async () => {
    const found = validateInboundNumber({ number, targetType, targetId });
    setIssues(found);
    setFailure(null);
    if (found.length || busy) return;
    setBusy(true);
    try {
      const row = await telephony.addInboundNumber(trunkId, { number, targetType, targetId });
      setRows((current) => [...(current ?? []), row].sort((a, b) => a.number.localeCompare(b.number)));
      setNumber('');
      toast.success(t('telephony.numbers.added', { number: row.number }));
    } catch (e) {
      // The server's refusal (taken, not available, a target gone meanwhile) is shown as it says it.
      setFailure(describeError(e, t));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (row: InboundNumber) => {
    if (!window.confirm(t('telephony.numbers.confirmRemove', { number: row.number }))) return;
    try {
      await telephony.removeInboundNumber(trunkId, row.id);
      setRows((current) => (current ?? []).filter((r) => r.id !== row.id));
    } catch (e) {
      setFailure(describeError(e, t));
    }
  };

  const numberError = issueFor('number');
  const targetError = issueFor('targetId');
  return (
    <section className="card trunk-numbers" data-testid="trunk-numbers">
      <h3 className="card__title">
        <i className="pi pi-phone" aria-hidden="true" /> {t('telephony.numbers.title')}
      </h3>
      <p className="muted">{t('telephony.numbers.intro')}</p>
      {rows === null && !failure ? (
        <p className="muted">{t('common.loading')}</p>
      ) : rows && rows.length === 0 ? (
        <p className="muted" data-testid="trunk-numbers-empty">
          {t('telephony.numbers.none')}
        </p>
      ) : (
        <table className="trunk-numbers__table">
          <thead>
            <tr>
              <th scope="col">{t('telephony.numbers.number')}</th>
              <th scope="col">{t('telephony.numbers.sendTo')}</th>
              <th scope="col">
                <span className="sr-only">{t('telephony.numbers.remove')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(rows ?? []).map((row) => (
              <tr key={row.id} data-testid="trunk-number">
                <td>
                  <code>{row.number}</code>
                </td>
                <td>
                  <span className="chip">{t(row.ivrId ? 'telephony.numbers.toIvr' : 'telephony.numbers.toLine')}</span>{' '}
                  {formatNullable(row.targetName, t)}
                </td>
                <td>
                  <Button
                    icon="pi pi-trash"
                    rounded
                    text
                    severity="danger"
                    aria-label={t('telephony.numbers.remove')}
                    tooltip={t('telephony.numbers.remove')}
                    onClick={() => void remove(row)}
                    data-testid="trunk-number-remove"
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="trunk-numbers__add">
        <div className={numberError ? 'field field--invalid' : 'field'}>
          <label htmlFor="trunk-number-new" className="field__label">
            {t('telephony.numbers.number')}
          </label>
          <InputText
            id="trunk-number-new"
            data-testid="trunk-number-new"
            value={number}
            placeholder="+34911222333"
            invalid={!!numberError}
            onChange={(e) => setNumber(e.target.value)}
          />
          <small className={numberError ? 'field__error' : 'field__hint'}>{numberError ?? t('telephony.numbers.numberHint')}</small>
        </div>
        <div className="field">
          <label htmlFor="trunk-number-type" className="field__label">
            {t('telephony.numbers.sendTo')}
          </label>
          <Dropdown
            inputId="trunk-number-type"
            data-testid="trunk-number-type"
            value={targetType}
            options={INBOUND_TARGET_TYPES.map((type) => ({
              value: type,
              label: t(`telephony.numbers.${type === 'ivr' ? 'toIvr' : 'toLine'}`),
            }))}
            optionLabel="label"
            optionValue="value"
            onChange={(e) => {
              setTargetType(e.value as InboundTargetType);
              setTargetId('');
            }}
          />
        </div>
        <div className={targetError ? 'field field--invalid' : 'field'}>
          <label htmlFor="trunk-number-target" className="field__label">
            {t(targetType === 'ivr' ? 'telephony.numbers.toIvr' : 'telephony.numbers.toLine')}
          </label>
          <Dropdown
            inputId="trunk-number-target"
            data-testid="trunk-number-target"
            value={targetId || null}
            options={choices.map((c) => ({ value: c.id, label: c.name }))}
            optionLabel="label"
            optionValue="value"
            placeholder={t('telephony.tree.target')}
            emptyMessage={t('telephony.tree.noTargets')}
            filter={choices.length > 8}
            invalid={!!targetError}
            onChange={(e) => setTargetId((e.value as string) ?? '')}
          />
          {targetError && <small className="field__error">{targetError}</small>}
        </div>
        <Button
          type="button"
          icon="pi pi-plus"
          label={t('telephony.numbers.add')}
          loading={busy}
          onClick={() => void add()}
          data-testid="trunk-number-add"
        />
      </div>
      {failure && (
        <div className="form-error" role="alert" data-testid="trunk-numbers-error">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{failure}</span>
        </div>
      )}
    </section>
  );
}
