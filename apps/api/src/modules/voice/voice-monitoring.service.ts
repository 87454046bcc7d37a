import {
  LANGUAGES,
  QUEUES,
  outboxJob,
  roomName,
  type Language,
  type VoiceCallEvent,
  type VoiceCommand,
  type VoiceMonitorMode,
  type VoiceMonitorStatus,
} from '@centralita/contracts';
import { jobEffect } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { MachineHostService } from '../machine-host/machine-host.service';
import { writeOutbox } from '../machine-host/outbox';
import { noteView } from '../machine-host/views';
import type { Principal } from '../auth/principal';
import { agentSipUri } from './voice-calls.service';
import type { VoiceCallRow } from './voice-events.service';

/** A live call's monitoring as the console shows it (GET …/call carries it too). */
export interface VoiceMonitorView {
  callId: string;
  supervisorId: string | null;
  mode: VoiceMonitorMode | null;
  /** 'ringing': the supervisor's softphone is being called; 'active': they are on the call; null: nobody monitors. */
  state: 'ringing' | 'active' | null;
}

type MonitoredRow = Pick<VoiceCallRow, 'id' | 'client_id' | 'stage' | 'ended_at'> & {
  monitor_supervisor_id: string | null;
  monitor_mode: VoiceMonitorMode | null;
  monitor_state: 'ringing' | 'active' | null;
};

/**
 * Supervisor monitoring of a live phone conversation (issue 22 item 4): listen, whisper, barge. The API checks and
 * records the request and sends the worker `monitor` / `monitor.mode` / `monitor.stop` in the same transaction; the
 * worker rings the supervisor's softphone and reports call.monitor, which VoiceEventsService applies (state, and the
 * staff-only note in the conversation). Tenant-scoped: another tenant's conversation is 404; a call that is not
 * connected to an agent is 409; one supervisor at a time.
 */
@Injectable()
export class VoiceMonitoringService {
  constructor(private readonly host: MachineHostService) {}

  /** The call's monitoring and whether the signed-in supervisor could start it (connected call, own softphone). */
  async status(principal: Principal, conversationId: string): Promise<VoiceMonitorStatus> {
    return this.host.transaction(async (manager) => {
      const call = await this.liveCall(manager, principal.clientId, conversationId, false);
      const softphone = await this.softphoneUri(manager, principal).then(
        () => true,
        () => false,
      );
      return {
        callId: call.id,
        connected: !call.ended_at && call.stage === 'connected',
        softphone,
        supervisorId: call.monitor_supervisor_id,
        mode: call.monitor_mode,
        state: call.monitor_state,
      };
    });
  }

  start(principal: Principal, conversationId: string, mode: VoiceMonitorMode): Promise<VoiceMonitorView> {
    return this.host.transaction(async (manager, outbox) => {
      const call = await this.connectedCall(manager, principal.clientId, conversationId);
      if (call.monitor_supervisor_id)
        throw new AppException('conflict', { message: 'Someone is already monitoring this call.', messageKey: 'monitorInUse' });
      const uri = await this.softphoneUri(manager, principal);
      await manager.query(
        `UPDATE voice_calls SET monitor_supervisor_id = $2, monitor_mode = $3, monitor_state = 'ringing', updated_at = now() WHERE id = $1`,
        [call.id, principal.userId, mode],
      );
      outbox.push(
        ...(await writeOutbox(manager, [
          command({
            type: 'monitor',
            tenantId: principal.clientId,
            callId: call.id,
            supervisorId: principal.userId,
            supervisorSipUri: uri,
            mode,
          }),
        ])),
      );
      return { callId: call.id, supervisorId: principal.userId, mode, state: 'ringing' };
    });
  }

  /** Another mode for the caller's own running monitoring. */
  setMode(principal: Principal, conversationId: string, mode: VoiceMonitorMode): Promise<VoiceMonitorView> {
    return this.host.transaction(async (manager, outbox) => {
      const call = await this.connectedCall(manager, principal.clientId, conversationId);
      if (call.monitor_supervisor_id !== principal.userId || call.monitor_state !== 'active') throw notMonitoring();
      await manager.query(`UPDATE voice_calls SET monitor_mode = $2, updated_at = now() WHERE id = $1`, [call.id, mode]);
      outbox.push(
        ...(await writeOutbox(manager, [
          command({ type: 'monitor.mode', tenantId: principal.clientId, callId: call.id, supervisorId: principal.userId, mode }),
        ])),
      );
      return { callId: call.id, supervisorId: principal.userId, mode, state: 'active' };
    });
  }

  /**
   * Ends the monitoring (ringing or active) of this call, whoever of the tenant's supervisors started it: the record is
   * cleared at once, so a worker that never reports (restarted meanwhile) cannot leave the call looking monitored.
   */
  stop(principal: Principal, conversationId: string): Promise<VoiceMonitorView> {
    return this.host.transaction(async (manager, outbox) => {
      const call = await this.liveCall(manager, principal.clientId, conversationId);
      if (!call.monitor_supervisor_id) throw notMonitoring();
      await manager.query(
        `UPDATE voice_calls SET monitor_supervisor_id = NULL, monitor_mode = NULL, monitor_state = NULL, updated_at = now() WHERE id = $1`,
        [call.id],
      );
      if (!call.ended_at)
        outbox.push(
          ...(await writeOutbox(manager, [
            command({ type: 'monitor.stop', tenantId: principal.clientId, callId: call.id, supervisorId: call.monitor_supervisor_id }),
          ])),
        );
      return { callId: call.id, supervisorId: null, mode: null, state: null };
    });
  }

  /** The latest call of one of the tenant's conversations, locked; 404 when there is none (or it is another tenant's). */
  private async liveCall(manager: EntityManager, tenantId: string, conversationId: string, lock = true): Promise<MonitoredRow> {
    const [call] = (await manager.query(
      `SELECT id, client_id, stage, ended_at, monitor_supervisor_id, monitor_mode, monitor_state FROM voice_calls
        WHERE conversation_id = $1 AND client_id = $2 ORDER BY created_at DESC LIMIT 1${lock ? ' FOR NO KEY UPDATE' : ''}`,
      [conversationId, tenantId],
    )) as MonitoredRow[];
    if (!call) throw AppException.notFound();
    return call;
  }

  private async connectedCall(manager: EntityManager, tenantId: string, conversationId: string): Promise<MonitoredRow> {
    const call = await this.liveCall(manager, tenantId, conversationId);
    if (call.ended_at || call.stage !== 'connected')
      throw new AppException('conflict', {
        message: 'The call is not connected to an agent: it can be monitored only while they talk.',
        messageKey: 'monitorCallNotConnected',
      });
    return call;
  }

  /** Where the supervisor's own softphone registers: they monitor with it, like an agent takes calls. */
  private async softphoneUri(manager: EntityManager, principal: Principal): Promise<string> {
    const [row] = (await manager.query(
      `SELECT a.auth_user, c.domain FROM softphone_accounts a JOIN softphone_configs c ON c.client_id = a.client_id
        WHERE a.client_id = $1 AND a.user_id = $2 AND btrim(a.auth_user) <> '' AND btrim(c.domain) <> ''`,
      [principal.clientId, principal.userId],
    )) as { auth_user: string; domain: string }[];
    if (!row)
      throw new AppException('conflict', {
        message: 'You have no softphone: a call is monitored with your own softphone.',
        messageKey: 'monitorNoSoftphone',
      });
    return agentSipUri(row.auth_user, row.domain);
  }
}

const notMonitoring = () => new AppException('conflict', { message: 'You are not monitoring this call.', messageKey: 'monitorNotActive' });

function command(data: VoiceCommand) {
  return jobEffect(outboxJob(QUEUES.voiceCommands, { name: data.type, data }));
}

/**
 * The worker's call.monitor, in the call's event transaction: the call's monitoring record follows it (only for the
 * supervisor it is about: a report of an earlier, already stopped monitoring changes nothing) and the conversation
 * gets a note by that supervisor, a line staff see and the caller never does.
 */
export async function applyMonitorEvent(
  manager: EntityManager,
  outbox: string[],
  call: Pick<VoiceCallRow, 'id' | 'client_id' | 'conversation_id'>,
  event: Extract<VoiceCallEvent, { type: 'call.monitor' }>,
  language: string,
): Promise<void> {
  const [supervisor] = (await manager.query(`SELECT id, name FROM users WHERE id::text = $1 AND client_id = $2`, [
    event.supervisorId,
    call.client_id,
  ])) as { id: string; name: string }[];
  if (!supervisor) return;
  if (event.state === 'started' || event.state === 'changed')
    await manager.query(
      `UPDATE voice_calls SET monitor_state = 'active', monitor_mode = $3, updated_at = now() WHERE id = $1 AND monitor_supervisor_id = $2`,
      [call.id, supervisor.id, event.mode],
    );
  else
    await manager.query(
      `UPDATE voice_calls SET monitor_supervisor_id = NULL, monitor_mode = NULL, monitor_state = NULL, updated_at = now()
        WHERE id = $1 AND monitor_supervisor_id = $2`,
      [call.id, supervisor.id],
    );
  if (!call.conversation_id) return;
  const text = monitorNote(event.state, language, { name: supervisor.name, mode: modeName(event.mode, language), reason: event.reason });
  const [row] = (await manager.query(
    `INSERT INTO conversation_notes (conversation_id, tenant_id, author_id, text) VALUES ($1, $2, $3, $4) RETURNING *`,
    [call.conversation_id, call.client_id, supervisor.id, text.slice(0, 500)],
  )) as Parameters<typeof noteView>[0][];
  const [conversation] = (await manager.query(`SELECT agent_id FROM conversations WHERE id = $1`, [call.conversation_id])) as {
    agent_id: string | null;
  }[];
  // Staff namespace only, where the conversation's other notes go.
  const rooms = [roomName({ kind: 'conversation', id: call.conversation_id }), roomName({ kind: 'tenant', id: call.client_id })];
  if (conversation?.agent_id) rooms.push(roomName({ kind: 'agent', id: conversation.agent_id }));
  outbox.push(
    ...(await writeOutbox(manager, [
      { topic: 'socket', payload: { emits: [{ namespace: 'staff', rooms, event: 'note.created', data: noteView(row!) }] } },
    ])),
  );
}

/** The call events that change what the monitoring bar shows: whether the call is connected, and who monitors it. */
const MONITOR_BAR_EVENTS = new Set<VoiceCallEvent['type']>([
  'call.connected',
  'call.released',
  'call.abandoned',
  'call.ended',
  'call.monitor',
  'call.consultConnected',
  'call.consultCompleted',
]);

/**
 * One `voiceCall.updated` (staff namespace, the conversation's and the tenant's rooms, where the monitoring notes go)
 * when the applied events moved the call: the console's bar re-reads its status then, instead of polling.
 */
export async function monitorBarPush(
  manager: EntityManager,
  call: Pick<VoiceCallRow, 'id' | 'client_id' | 'conversation_id'>,
  events: VoiceCallEvent[],
): Promise<string[]> {
  if (!call.conversation_id || !events.some((event) => MONITOR_BAR_EVENTS.has(event.type))) return [];
  const rooms = [roomName({ kind: 'conversation', id: call.conversation_id }), roomName({ kind: 'tenant', id: call.client_id })];
  const data = { conversationId: call.conversation_id, callId: call.id };
  return writeOutbox(manager, [{ topic: 'socket', payload: { emits: [{ namespace: 'staff', rooms, event: 'voiceCall.updated', data }] } }]);
}

const MONITOR_NOTES: Record<Extract<VoiceCallEvent, { type: 'call.monitor' }>['state'], Record<Language, string>> = {
  started: {
    es: '{name} empezó a supervisar la llamada ({mode})',
    en: '{name} started monitoring the call ({mode})',
    el: 'Ο/Η {name} ξεκίνησε την παρακολούθηση της κλήσης ({mode})',
    it: '{name} ha iniziato a monitorare la chiamata ({mode})',
    sr: '{name} je započeo/la nadzor poziva ({mode})',
    de: '{name} überwacht jetzt den Anruf ({mode})',
    ru: '{name} начал(а) мониторинг звонка ({mode})',
  },
  changed: {
    es: '{name} cambió la supervisión a: {mode}',
    en: '{name} switched the monitoring to: {mode}',
    el: 'Ο/Η {name} άλλαξε την παρακολούθηση σε: {mode}',
    it: '{name} ha cambiato il monitoraggio in: {mode}',
    sr: '{name} je promenio/la nadzor u: {mode}',
    de: '{name} hat die Überwachung umgestellt auf: {mode}',
    ru: '{name} переключил(а) мониторинг на: {mode}',
  },
  ended: {
    es: '{name} dejó de supervisar la llamada',
    en: '{name} stopped monitoring the call',
    el: 'Ο/Η {name} σταμάτησε την παρακολούθηση της κλήσης',
    it: '{name} ha smesso di monitorare la chiamata',
    sr: '{name} je prekinuo/la nadzor poziva',
    de: '{name} hat die Überwachung des Anrufs beendet',
    ru: '{name} прекратил(а) мониторинг звонка',
  },
  failed: {
    es: 'La supervisión de {name} no pudo empezar ({reason})',
    en: 'Monitoring by {name} could not start ({reason})',
    el: 'Η παρακολούθηση από τον/την {name} δεν μπόρεσε να ξεκινήσει ({reason})',
    it: 'Il monitoraggio di {name} non è potuto iniziare ({reason})',
    sr: 'Nadzor korisnika {name} nije mogao da počne ({reason})',
    de: 'Die Überwachung durch {name} konnte nicht beginnen ({reason})',
    ru: 'Не удалось начать мониторинг пользователем {name} ({reason})',
  },
};

const MODE_NAMES: Record<VoiceMonitorMode, Record<Language, string>> = {
  listen: { es: 'escuchar', en: 'listen', el: 'ακρόαση', it: 'ascolto', sr: 'slušanje', de: 'Mithören', ru: 'прослушивание' },
  whisper: { es: 'susurrar', en: 'whisper', el: 'ψίθυρος', it: 'sussurro', sr: 'šaptanje', de: 'Flüstern', ru: 'подсказка' },
  barge: { es: 'intervenir', en: 'barge', el: 'παρέμβαση', it: 'intervento', sr: 'uključivanje', de: 'Aufschalten', ru: 'вмешательство' },
};

const languageOf = (language: string): Language => ((LANGUAGES as readonly string[]).includes(language) ? (language as Language) : 'es');

function modeName(mode: VoiceMonitorMode, language: string): string {
  return MODE_NAMES[mode]?.[languageOf(language)] ?? mode;
}

/** The note of a call.monitor in the tenant's language (an unknown one reads as Spanish, the default). */
export function monitorNote(state: keyof typeof MONITOR_NOTES, language: string, values: Record<string, string>): string {
  return MONITOR_NOTES[state][languageOf(language)].replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
