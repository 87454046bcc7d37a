import { useCallback, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import {
  TRUNK_LIMITS,
  TRUNK_TRANSPORTS,
  validateTrunk,
  type AppRoute,
  type TrunkSummary,
  type TrunkTransport,
} from '@centralita/contracts';
import { useApi } from '../../app/ServicesContext';
import { formatActive, formatNullable } from '../../format/format';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { CheckInput, NumberInput, PasswordInput, SelectInput, TextInput } from '../fields';
import { useAdminForm } from '../useAdminForm';

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
        };
      }}
      toBody={(v) => ({
        ...v,
        transport: v.transport as TrunkTransport,
        username: v.username.trim() || null,
        callerId: v.callerId.trim() || null,
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
    </AdminFormPage>
  );
}
