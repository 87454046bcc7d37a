import { normalizeInboundNumber, validateInboundNumber, type InboundNumber, type InboundNumberInput } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { assertRules, isUniqueViolation } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { TrunkInboundNumber } from './trunk-inbound-number.entity';
import { Trunk } from './trunk.entity';

const AUDIT_TYPE = 'trunk';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Row = TrunkInboundNumber & { targetName: string | null };

function toView(row: Row): InboundNumber {
  return {
    id: row.id,
    trunkId: row.trunkId,
    number: row.number,
    ivrId: row.ivrId,
    attentionLineId: row.attentionLineId,
    targetName: row.targetName,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The called numbers a trunk answers (/api/trunks/:id/numbers). A number is unique across the
 * platform: the one voice server finds the tenant by it. Another tenant's number is refused
 * without saying whose it is.
 */
@Injectable()
export class InboundNumbersService {
  constructor(
    @InjectRepository(TrunkInboundNumber) private readonly numbers: Repository<TrunkInboundNumber>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async list(clientId: string, trunkId: string): Promise<InboundNumber[]> {
    await this.trunk(clientId, trunkId);
    return (await this.rows(clientId, trunkId)).map(toView);
  }

  async add(principal: Principal, trunkId: string, body: Partial<Record<keyof InboundNumberInput, unknown>>): Promise<InboundNumber> {
    const clientId = principal.clientId;
    const trunk = await this.trunk(clientId, trunkId);
    assertRules(validateInboundNumber(body));
    const number = normalizeInboundNumber(String(body.number))!;
    const targetType = String(body.targetType);
    const targetId = String(body.targetId).trim();
    const targetTable = targetType === 'ivr' ? 'ivrs' : 'attention_lines';
    const [target] = uuid.test(targetId)
      ? await this.dataSource.query(`SELECT id FROM ${targetTable} WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
          targetId,
          clientId,
        ])
      : [];
    if (!target) {
      const message = `targetId points at ${targetType === 'ivr' ? 'an IVR' : 'an attention line'} that does not exist in this tenant`;
      throw new AppException('validation', {
        message,
        data: { fields: { targetId: [message] }, issues: [{ field: 'targetId', key: 'unknown' }] },
      });
    }
    await this.assertFree(clientId, number);
    let id: string;
    try {
      id = await this.dataSource.transaction(async (manager) => {
        const repo = manager.getRepository(TrunkInboundNumber);
        const row = await repo.save(
          repo.create({
            clientId,
            trunkId: trunk.id,
            number,
            ivrId: targetType === 'ivr' ? targetId : null,
            attentionLineId: targetType === 'line' ? targetId : null,
          }),
        );
        await this.audit.record(
          principal,
          {
            entityType: AUDIT_TYPE,
            entityId: trunk.id,
            action: 'update',
            before: null,
            after: { inboundNumberAdded: number, targetType, targetId },
          },
          manager,
        );
        return row.id;
      });
    } catch (error) {
      // Taken between the check and the insert (by any tenant).
      if (isUniqueViolation(error, 'uq_trunk_inbound_numbers_number')) await this.assertFree(clientId, number);
      throw error;
    }
    return toView((await this.rows(clientId, trunk.id)).find((r) => r.id === id)!);
  }

  async remove(principal: Principal, trunkId: string, numberId: string): Promise<{ deleted: true }> {
    const trunk = await this.trunk(principal.clientId, trunkId);
    const row = await this.numbers.findOne({ where: { id: numberId, trunkId: trunk.id, clientId: principal.clientId } });
    if (!row) throw AppException.notFound();
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(TrunkInboundNumber, { id: row.id, clientId: principal.clientId });
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: trunk.id, action: 'update', before: { inboundNumberRemoved: row.number }, after: null },
        manager,
      );
    });
    return { deleted: true };
  }

  /** 409 when the number is already routed: naming the trunk when it is this tenant's, saying nothing more when it is another's. */
  private async assertFree(clientId: string, number: string): Promise<void> {
    const [taken] = await this.dataSource.query(
      `SELECT n.client_id, t.name FROM trunk_inbound_numbers n JOIN trunks t ON t.id = n.trunk_id WHERE n.number = $1`,
      [number],
    );
    if (!taken) return;
    if (taken.client_id === clientId) {
      const message = `number ${number} is already answered by the trunk "${taken.name}"`;
      throw new AppException('conflict', {
        message,
        messageKey: 'inboundNumberTaken',
        params: { number, name: taken.name },
        data: { fields: { number: [message] }, issues: [{ field: 'number', key: 'duplicate' }] },
      });
    }
    const message = 'this number is not available';
    throw new AppException('conflict', {
      message,
      messageKey: 'inboundNumberUnavailable',
      params: { number },
      data: { fields: { number: [message] } },
    });
  }

  private async rows(clientId: string, trunkId: string): Promise<Row[]> {
    const rows = await this.numbers
      .createQueryBuilder('n')
      .leftJoin('ivrs', 'i', 'i.id = n.ivr_id')
      .leftJoin('attention_lines', 'l', 'l.id = n.attention_line_id')
      .addSelect('COALESCE(i.name, l.name)', 'target_name')
      .where('n.client_id = :clientId AND n.trunk_id = :trunkId', { clientId, trunkId })
      .orderBy('n.number', 'ASC')
      .getRawAndEntities();
    return rows.entities.map((entity, index) => ({ ...entity, targetName: (rows.raw[index]?.target_name as string | null) ?? null }));
  }

  private async trunk(clientId: string, id: string): Promise<Trunk> {
    const row = await this.dataSource.getRepository(Trunk).findOne({ where: { id, clientId } });
    if (!row) throw AppException.notFound();
    return row;
  }
}
