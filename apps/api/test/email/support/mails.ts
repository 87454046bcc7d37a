import { randomBytes } from 'node:crypto';

/** A Message-ID of the customer's own server. */
export const customerMessageId = (domain: string) => `<${randomBytes(8).toString('hex')}@${domain}>`;

/** A raw RFC 5322 message as a customer's client writes it (CRLF line ends). */
export function rawMail(input: {
  from: string;
  fromName?: string;
  to: string;
  cc?: string;
  subject: string;
  messageId: string;
  text?: string;
  html?: string;
  inReplyTo?: string;
  references?: string[];
  extraHeaders?: string[];
  attachment?: { fileName: string; mimeType: string; bytes: Buffer };
  date?: Date;
}): string {
  const boundary = `b-${randomBytes(6).toString('hex')}`;
  const alt = `a-${randomBytes(6).toString('hex')}`;
  const headers = [
    ...(input.extraHeaders ?? []),
    `From: ${input.fromName ? `"${input.fromName}" ` : ''}<${input.from}>`,
    `To: ${input.to}`,
    ...(input.cc ? [`Cc: ${input.cc}`] : []),
    `Subject: ${input.subject}`,
    `Date: ${(input.date ?? new Date()).toUTCString()}`,
    `Message-ID: ${input.messageId}`,
    ...(input.inReplyTo ? [`In-Reply-To: ${input.inReplyTo}`] : []),
    ...(input.references?.length ? [`References: ${input.references.join(' ')}`] : []),
    'MIME-Version: 1.0',
  ];
  const text = input.text ?? '';
  const body: string[] = [];
  const textPart = ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', text];
  const htmlPart = input.html ? ['Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', input.html] : [];
  const alternative = input.html
    ? [`Content-Type: multipart/alternative; boundary="${alt}"`, '', `--${alt}`, ...textPart, `--${alt}`, ...htmlPart, `--${alt}--`]
    : textPart;
  if (input.attachment) {
    headers.push(`Content-Type: multipart/mixed; boundary="${boundary}"`);
    body.push(`--${boundary}`, ...alternative, `--${boundary}`);
    body.push(
      `Content-Type: ${input.attachment.mimeType}; name="${input.attachment.fileName}"`,
      `Content-Disposition: attachment; filename="${input.attachment.fileName}"`,
      'Content-Transfer-Encoding: base64',
      '',
      ...(input.attachment.bytes.toString('base64').match(/.{1,76}/g) ?? []),
      `--${boundary}--`,
    );
    return [...headers, '', ...body, ''].join('\r\n');
  }
  if (input.html) {
    headers.push(alternative[0]!);
    return [...headers, ...alternative.slice(1), ''].join('\r\n');
  }
  headers.push(textPart[0]!, textPart[1]!);
  return [...headers, '', text, ''].join('\r\n');
}

/** A small real PDF (magic bytes %PDF-): passes the file store's content check. */
export const TINY_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj ' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);
