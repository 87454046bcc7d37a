import type { MailJob } from '@centralita/contracts';
import { Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { MailProcessor, mailMessageId } from './mail.processor';
import type { MailTransportService } from './mail-transport.service';

describe(MailProcessor.name, () => {
  const send = jest.fn(async (_job: MailJob, _options?: { messageId?: string }) => undefined);
  const processor = new MailProcessor({ send } as unknown as MailTransportService);
  const job = (data: unknown): Job<MailJob> => ({ id: '7', queueQualifiedName: 'bull:mail', data }) as unknown as Job<MailJob>;

  beforeAll(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  beforeEach(() => send.mockClear());

  it('hands a well-formed job to the transport with the job’s own Message-ID', async () => {
    const mail = { to: 'a@b.co', subject: 'Hi', text: 'Body', html: '<p>Body</p>' };
    await processor.process(job(mail));
    expect(send).toHaveBeenCalledWith(mail, { messageId: '<mail.7.bull-mail@centralita.invalid>' });
  });

  it('gives every attempt of a job the same Message-ID, and another job another', () => {
    expect(mailMessageId(job({}))).toBe(mailMessageId(job({})));
    expect(mailMessageId({ id: '8', queueQualifiedName: 'bull:mail' })).not.toBe(mailMessageId(job({})));
  });

  it('fails a malformed job for good instead of retrying it', async () => {
    await expect(processor.process(job({ to: 'a@b.co' }))).rejects.toBeInstanceOf(UnrecoverableError);
    expect(send).not.toHaveBeenCalled();
  });

  it('lets transport failures through so BullMQ retries', async () => {
    send.mockRejectedValueOnce(new Error('421 try later'));
    await expect(processor.process(job({ to: 'a@b.co', subject: 's', text: 't' }))).rejects.toThrow('421 try later');
  });
});
