import { Checkbox } from 'primereact/checkbox';
import { InputText } from 'primereact/inputtext';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import { DEFAULT_CALLING_WINDOWS, type MessageCampaignInput, type MessageCampaignView } from '@centralita/contracts';

/** The schedule part of the new-campaign form: local date-times as the browser's datetime-local gives them. */
export interface ScheduleForm {
  startsAt: string;
  endsAt: string;
  /** Send only inside the dialer's default calling windows (recipient's local time). */
  windows: boolean;
}

export const EMPTY_SCHEDULE: ScheduleForm = { startsAt: '', endsAt: '', windows: false };

/** The API's schedule fields from the form (an empty date-time is none). */
export function scheduleInput(form: ScheduleForm): Pick<MessageCampaignInput, 'startsAt' | 'endsAt' | 'callingWindows'> {
  return {
    startsAt: form.startsAt ? new Date(form.startsAt).toISOString() : null,
    endsAt: form.endsAt ? new Date(form.endsAt).toISOString() : null,
    callingWindows: form.windows ? DEFAULT_CALLING_WINDOWS : null,
  };
}

export function CampaignScheduleFields({ value, onChange }: { value: ScheduleForm; onChange: (next: ScheduleForm) => void }) {
  const { t } = useTranslation();
  return (
    <>
      <label>
        {t('messageCampaigns.form.startsAt')}
        <InputText
          type="datetime-local"
          data-testid="campaign-starts-at"
          value={value.startsAt}
          onChange={(event) => onChange({ ...value, startsAt: event.target.value })}
        />
      </label>
      <label>
        {t('messageCampaigns.form.endsAt')}
        <InputText
          type="datetime-local"
          data-testid="campaign-ends-at"
          value={value.endsAt}
          onChange={(event) => onChange({ ...value, endsAt: event.target.value })}
        />
      </label>
      <label className="mc-row">
        <Checkbox
          inputId="campaign-windows"
          checked={value.windows}
          onChange={(event) => onChange({ ...value, windows: Boolean(event.checked) })}
        />
        <span>{t('messageCampaigns.form.windows')}</span>
      </label>
    </>
  );
}

/** What the board says about the schedule: when a scheduled campaign starts, that it waits for its window, when it ends. */
export function CampaignScheduleNotice({ campaign }: { campaign: MessageCampaignView }) {
  const { t, i18n } = useTranslation();
  const when = (iso: string) => new Date(iso).toLocaleString(i18n.language, { dateStyle: 'short', timeStyle: 'short' });
  const live = campaign.status !== 'finished' && campaign.status !== 'stopped';
  return (
    <>
      {campaign.status === 'scheduled' && campaign.startsAt && (
        <Message
          severity="info"
          data-testid="board-scheduled"
          text={t('messageCampaigns.board.scheduledFor', { time: when(campaign.startsAt) })}
        />
      )}
      {campaign.status === 'running' && campaign.idleReason === 'outside_sending_window' && campaign.idleUntil && (
        <Message
          severity="info"
          data-testid="board-waiting"
          text={t('messageCampaigns.board.waitingWindow', { time: when(campaign.idleUntil) })}
        />
      )}
      {live && campaign.endsAt && <p className="mc-muted">{t('messageCampaigns.board.endsAt', { time: when(campaign.endsAt) })}</p>}
    </>
  );
}
