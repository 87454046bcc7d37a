import { useEffect, useMemo, useState } from 'react';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import { IVR_PROMPT_UPLOAD, VOICE_QUEUE_ANNOUNCEMENT, validateVoiceSettings, type VoiceSettings } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { cx } from '../../components/cx';
import { useToast } from '../../toast/ToastProvider';
import { NumberInput } from '../fields';
import { createTelephonyApi } from '../telephony/telephony-api';

/**
 * The tenant's phone settings under the IVR list: its own hold music (uploaded like a recorded prompt, converted
 * on the server, looped while callers wait; removing it brings back the built-in music) and how often a waiting
 * caller hears their position in the queue (0 = never).
 */
export function VoiceSettingsSection() {
  const { t } = useTranslation();
  const { client } = useServices();
  const telephony = useMemo(() => createTelephonyApi(client), [client]);
  const toast = useToast();
  const [settings, setSettings] = useState<VoiceSettings | null>(null);
  const [seconds, setSeconds] = useState<number | null>(VOICE_QUEUE_ANNOUNCEMENT.default);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [audioUrl, setAudioUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    telephony
      .voiceSettings()
      .then((loaded) => {
        if (!live) return;
        setSettings(loaded);
        setSeconds(loaded.queueAnnouncementSeconds);
      })
      .catch((e: unknown) => live && setFailure(describeError(e, t)));
    return () => {
      live = false;
    };
  }, [telephony, t]);
  useEffect(() => () => void (audioUrl && URL.revokeObjectURL(audioUrl)), [audioUrl]);

  const secondsIssue = validateVoiceSettings({ queueAnnouncementSeconds: seconds }).length > 0;
  const run = async (work: () => Promise<VoiceSettings>, done: string) => {
    setFailure(null);
    setBusy(true);
    try {
      const saved = await work();
      setSettings(saved);
      setSeconds(saved.queueAnnouncementSeconds);
      setAudioUrl(null);
      toast.success(done);
    } catch (e) {
      setFailure(describeError(e, t));
    } finally {
      setBusy(false);
    }
  };
  const upload = (file: File | undefined) => {
    if (!file) return;
    const extension = file.name.split('.').pop()?.toLowerCase() ?? '';
    if (!(IVR_PROMPT_UPLOAD.extensions as readonly string[]).includes(extension)) {
      setFailure(t('telephony.prompts.wrongType', { name: file.name }));
      return;
    }
    if (file.size > IVR_PROMPT_UPLOAD.maxBytes) {
      setFailure(t('telephony.prompts.tooLarge', { name: file.name, mb: IVR_PROMPT_UPLOAD.maxBytes / (1024 * 1024) }));
      return;
    }
    void run(() => telephony.uploadHoldMusic(file), t('telephony.voiceSettings.holdMusicSaved'));
  };
  const listen = async () => {
    try {
      setAudioUrl(URL.createObjectURL(await telephony.holdMusic()));
    } catch (e) {
      setFailure(describeError(e, t));
    }
  };

  return (
    <section className="card trunk-numbers" data-testid="voice-settings">
      <h3 className="card__title">
        <i className="pi pi-volume-up" aria-hidden="true" /> {t('telephony.voiceSettings.title')}
      </h3>
      {settings === null && !failure ? (
        <p className="muted">{t('common.loading')}</p>
      ) : (
        <>
          <div className="field">
            <span className="field__label">{t('telephony.voiceSettings.holdMusic')}</span>
            <div className="ivr-recording">
              {settings?.holdMusicFileId ? (
                <>
                  <span className="chip chip--success" data-testid="voice-hold-music-own">
                    <i className="pi pi-music" aria-hidden="true" /> {t('telephony.voiceSettings.holdMusicOwn')}
                  </span>
                  {audioUrl ? (
                    <audio controls autoPlay src={audioUrl} data-testid="voice-hold-music-player" />
                  ) : (
                    <Button type="button" icon="pi pi-play" label={t('telephony.prompts.listen')} text onClick={() => void listen()} />
                  )}
                  <Button
                    type="button"
                    icon="pi pi-times"
                    label={t('telephony.voiceSettings.holdMusicBuiltIn')}
                    text
                    severity="danger"
                    disabled={busy}
                    onClick={() => void run(() => telephony.clearHoldMusic(), t('telephony.voiceSettings.holdMusicCleared'))}
                    data-testid="voice-hold-music-clear"
                  />
                </>
              ) : (
                <span className="chip chip--muted" data-testid="voice-hold-music-default">
                  {t('telephony.voiceSettings.holdMusicDefault')}
                </span>
              )}
              <label className={cx('p-button p-button-outlined p-button-sm', busy && 'p-disabled')}>
                <i className={busy ? 'pi pi-spin pi-spinner' : 'pi pi-upload'} aria-hidden="true" />
                <span>{t('telephony.voiceSettings.holdMusicUpload')}</span>
                <input
                  type="file"
                  className="sr-only"
                  accept=".wav,.mp3,.ogg,audio/wav,audio/mpeg,audio/ogg"
                  disabled={busy}
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    e.target.value = '';
                    upload(file);
                  }}
                  data-testid="voice-hold-music-input"
                />
              </label>
            </div>
            <small className="field__hint">
              {t('telephony.voiceSettings.holdMusicHint', {
                mb: IVR_PROMPT_UPLOAD.maxBytes / (1024 * 1024),
                seconds: IVR_PROMPT_UPLOAD.maxSeconds,
              })}
            </small>
          </div>
          <div className="trunk-numbers__add">
            <NumberInput
              id="voice-announcement-seconds"
              label={t('telephony.voiceSettings.announcementSeconds')}
              value={seconds}
              min={VOICE_QUEUE_ANNOUNCEMENT.min}
              max={VOICE_QUEUE_ANNOUNCEMENT.max}
              onChange={setSeconds}
              error={
                secondsIssue
                  ? t('telephony.voiceSettings.announcementRange', { min: VOICE_QUEUE_ANNOUNCEMENT.min, max: VOICE_QUEUE_ANNOUNCEMENT.max })
                  : null
              }
              hint={t('telephony.voiceSettings.announcementHint')}
            />
            <Button
              type="button"
              icon="pi pi-check"
              label={t('telephony.voiceSettings.save')}
              disabled={busy || secondsIssue || seconds === settings?.queueAnnouncementSeconds}
              onClick={() =>
                void run(() => telephony.saveVoiceSettings({ queueAnnouncementSeconds: seconds! }), t('telephony.voiceSettings.saved'))
              }
              data-testid="voice-settings-save"
            />
          </div>
        </>
      )}
      {failure && (
        <small className="field__error" role="alert" data-testid="voice-settings-error">
          {failure}
        </small>
      )}
    </section>
  );
}
