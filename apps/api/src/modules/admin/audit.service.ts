import type { AuditAction, AuditEntry, Page } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { Principal } from '../auth/principal';
import { User } from '../users/user.entity';
import { AuditLog } from './audit-log.entity';

export interface AuditRecord {
  entityType: string;
  entityId: string;
  action: AuditAction;
  before: object | null;
  after: object | null;
}

/** JSON copy of a summary (dates as ISO strings) so jsonb stores exactly what the API answered. */
const snapshot = (value: object | null): Record<string, unknown> | null =>
  value === null ? null : (JSON.parse(JSON.stringify(value)) as Record<string, unknown>);

@Injectable()
export class AuditService {
  constructor(@InjectRepository(AuditLog) private readonly log: Repository<AuditLog>) {}

  /** Writes in the caller's transaction when given one, so a rolled-back change leaves no trail. */
  async record(principal: Principal, entry: AuditRecord, manager?: EntityManager): Promise<void> {
    const repo = manager ? manager.getRepository(AuditLog) : this.log;
    const actor = await repo.manager.findOne(User, { where: { id: principal.userId }, select: { id: true, name: true } });
    await repo.save(
      repo.create({
        clientId: principal.clientId,
        actorUserId: principal.userId,
        actorName: actor?.name ?? null,
        entityType: entry.entityType,
        entityId: entry.entityId,
        action: entry.action,
        before: snapshot(entry.before),
        after: snapshot(entry.after),
      }),
    );
  }

  async list(
    clientId: string,
    filter: { entityType?: string; entityId?: string; page?: number; pageSize?: number },
  ): Promise<Page<AuditEntry>> {
    const page = filter.page ?? 1;
    const pageSize = filter.pageSize ?? 25;
    const [rows, total] = await this.log.findAndCount({
      where: {
        clientId,
        ...(filter.entityType ? { entityType: filter.entityType } : {}),
        ...(filter.entityId ? { entityId: filter.entityId } : {}),
      },
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: (page - 1) * pageSize,
      take: pageSize,
    });
    return {
      items: rows.map((row) => ({
        id: row.id,
        entityType: row.entityType,
        entityId: row.entityId,
        action: row.action as AuditAction,
        actorUserId: row.actorUserId,
        actorName: row.actorName,
        before: row.before,
        after: row.after,
        createdAt: row.createdAt.toISOString(),
      })),
      total,
      page,
      pageSize,
    };
  }
}
