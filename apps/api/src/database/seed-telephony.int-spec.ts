import { validateIvrTree } from '@centralita/domain';
import type { DataSource } from 'typeorm';
import { Ivr } from '../modules/ivrs/ivr.entity';
import { Trunk } from '../modules/trunks/trunk.entity';
import { createDataSource } from './data-source';
import { DEMO_CLIENT_ID, seed } from './seed';
import { DEMO_TELEPHONY } from './seed-content';
import { DEMO_IVR_ID, DEMO_TRUNK_ID } from './seed-telephony';

describe('seedTelephonyDemo', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = createDataSource(process.env.DATABASE_URL!);
    await dataSource.initialize();
  });
  afterAll(() => dataSource.destroy());

  it('seeds one published main-menu IVR and one trunk, however often seed runs', async () => {
    await seed(dataSource);
    await seed(dataSource);
    // The demo tenant is Spanish (the default seed language).
    expect(await dataSource.getRepository(Ivr).countBy({ clientId: DEMO_CLIENT_ID, name: DEMO_TELEPHONY.es.ivrName })).toBe(1);
    expect(await dataSource.getRepository(Trunk).countBy({ clientId: DEMO_CLIENT_ID })).toBe(1);
    const ivr = await dataSource.getRepository(Ivr).findOneByOrFail({ id: DEMO_IVR_ID });
    expect(ivr).toMatchObject({ publishedVersion: 1, active: true });
    expect(ivr.publishedTree).toEqual(ivr.draftTree);
    expect(validateIvrTree(ivr.draftTree, { ivrId: ivr.id })).toEqual([]);
    const digits = ivr.draftTree.nodes[0].options.map((o) => [o.digit, o.destination.type]);
    expect(digits).toEqual([
      ['1', 'line'],
      ['2', 'line'],
      ['0', 'hangup'],
    ]);
    expect(ivr.draftTree.nodes[0].promptText).toBe(DEMO_TELEPHONY.es.prompt);
    expect(ivr.draftTree.nodes[0].options.map((option) => option.label)).toEqual([
      DEMO_TELEPHONY.es.customerService,
      DEMO_TELEPHONY.es.helpDesk,
      DEMO_TELEPHONY.es.hangUp,
    ]);
    const trunk = await dataSource.getRepository(Trunk).findOneByOrFail({ id: DEMO_TRUNK_ID });
    expect(trunk).toMatchObject({ host: 'sip.example.com', port: 5060, transport: 'udp', passwordEncrypted: null });
  });
});
