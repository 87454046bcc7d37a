import { useEffect, useState } from 'react';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import type { ParameterSourceInput } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import type { MessageCampaignsApi } from './message-campaigns-api';

const EMAIL_SOURCES = ['name', 'phone', 'column', 'fixed'] as const;

/**
 * The email part of the campaign form (issue 21, email campaigns): the list column holding the
 * recipient addresses and, for each {{n}} of the email template, where its value comes from (the
 * row's name or phone, another column of the list, or a fixed text). The pace is the account's
 * setting (messages per minute), not the form's.
 */
export function EmailCampaignFields({
  api,
  phoneListId,
  addressColumn,
  onAddressColumn,
  body,
  onBody,
}: {
  api: MessageCampaignsApi;
  phoneListId: string | null;
  addressColumn: string | null;
  onAddressColumn: (column: string | null) => void;
  body: ParameterSourceInput[];
  onBody: (body: ParameterSourceInput[]) => void;
}) {
  const { t } = useTranslation();
  const [columns, setColumns] = useState<string[]>([]);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    if (!phoneListId) return setColumns([]);
    api.listColumns(phoneListId).then(
      (found) => {
        setColumns(found);
        setFailure(null);
        // A column named like an address is the likely choice.
        if (!addressColumn) onAddressColumn(found.find((one) => /e-?mail|correo|address/.test(one)) ?? null);
      },
      (error: unknown) => setFailure(describeError(error, t)),
    );
  }, [api, phoneListId, t]);

  const columnOptions = columns.map((value) => ({ value, label: value }));
  const update = (index: number, next: ParameterSourceInput) => {
    const all = [...body];
    all[index] = next;
    onBody(all);
  };

  return (
    <div className="mc-editor__form" data-testid="email-campaign-fields">
      {failure && <Message severity="error" text={failure} />}
      <label>
        {t('emailCampaigns.form.addressColumn')}
        <Dropdown
          data-testid="email-address-column"
          value={addressColumn}
          options={columnOptions}
          placeholder={phoneListId ? t('emailCampaigns.form.pickColumn') : t('emailCampaigns.form.pickListFirst')}
          emptyMessage={t('emailCampaigns.form.noColumns')}
          onChange={(event) => onAddressColumn(event.value as string)}
        />
      </label>
      <small className="mc-muted">{t('emailCampaigns.form.paceHelp')}</small>
      {body.map((source, index) => (
        <div className="mc-row" key={index}>
          <label>
            {t('messageCampaigns.form.bodyParameter', { n: index + 1 })}
            <Dropdown
              data-testid={`email-source-${index + 1}`}
              value={source.source}
              options={EMAIL_SOURCES.map((value) => ({
                value,
                label: value === 'column' ? t('emailCampaigns.form.column') : t(`messageCampaigns.sources.${value}`),
              }))}
              onChange={(event) => update(index, { source: event.value as ParameterSourceInput['source'] })}
            />
          </label>
          {source.source === 'column' && (
            <label>
              {t('emailCampaigns.form.column')}
              <Dropdown
                data-testid={`email-column-${index + 1}`}
                value={source.value ?? null}
                options={columnOptions}
                emptyMessage={t('emailCampaigns.form.noColumns')}
                onChange={(event) => update(index, { source: 'column', value: event.value as string })}
              />
            </label>
          )}
          {source.source === 'fixed' && (
            <label>
              {t('messageCampaigns.form.fixedValue')}
              <InputText value={source.value ?? ''} onChange={(event) => update(index, { source: 'fixed', value: event.target.value })} />
            </label>
          )}
        </div>
      ))}
    </div>
  );
}
