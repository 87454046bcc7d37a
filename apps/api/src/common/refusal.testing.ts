import { AppException } from './app.exception';

/** For unit specs: what an AppException a call rejected with says, or a failure when it did not reject. */
export async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (error instanceof AppException) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}
