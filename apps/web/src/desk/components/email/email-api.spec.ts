import { describe, expect, it } from '@jest/globals';
import { replyBody } from './email-api';

describe(replyBody.name, () => {
  it('writes a multipart body whose lower-case boundary survives the Blob type, with UTF-8 file names', async () => {
    const file = new File(['%PDF-1.4 x'], 'Factura «marzo».pdf', { type: 'application/pdf' });
    const body = replyBody({ html: '<p>Hola</p>', cc: ['a@x.test'] }, [file], '----centralita-test');
    expect(body.type).toBe('multipart/form-data; boundary=----centralita-test');
    const text = await body.text();
    expect(text).toBe(
      '------centralita-test\r\nContent-Disposition: form-data; name="payload"\r\nContent-Type: application/json; charset=utf-8\r\n\r\n' +
        '{"html":"<p>Hola</p>","cc":["a@x.test"]}\r\n' +
        '------centralita-test\r\nContent-Disposition: form-data; name="files"; filename="Factura _marzo_.pdf"; ' +
        "filename*=UTF-8''Factura%20%C2%ABmarzo%C2%BB.pdf\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 x\r\n" +
        '------centralita-test--\r\n',
    );
  });
});
