import {
  LIMITS,
  TEMPLATE_MEDIA_LIMITS,
  headerMediaProblem,
  renderNamed,
  type MessageView,
  type TemplateMessageInput,
  type TemplateView,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import type { ConversationRow } from '../machine-host/views';
import { DeskService } from './desk.service';
import type { NewAttachment, StoredTemplate } from './messages.service';
import { OutboundRulesService, renderTemplate } from './outbound-rules.service';

type MediaFormat = keyof typeof TEMPLATE_MEDIA_LIMITS;

function invalid(field: string, message: string): AppException {
  return new AppException('validation', { message, data: { fields: { [field]: [message] } } });
}

/**
 * The desk's template sends (POST /api/conversations/:id/template-messages and its upload twin):
 * positional ({{1}}) and NAMED ({{first_name}}) templates, text and media headers. Checked against
 * the account's approved template (400 naming the field), stored with the rendered text, sent by
 * the worker with the parameters (and the header's medium) through the adapter.
 */
@Injectable()
export class TemplateSendService {
  constructor(
    private readonly desk: DeskService,
    private readonly rules: OutboundRulesService,
  ) {}

  /** The conversation (the caller's to handle) and its approved template named in the input (400 when there is none). */
  async prepare(principal: Principal, id: string, input: Pick<TemplateMessageInput, 'name' | 'language'>) {
    const conversation: ConversationRow = await this.desk.visible(principal, id);
    DeskService.requireHandler(principal, conversation);
    const template = (await this.rules.templates(conversation)).find(
      (candidate) => candidate.name === input.name && candidate.language === input.language,
    );
    if (!template) throw invalid('name', `The account has no approved template ${input.name} in ${input.language}`);
    return { conversation, template };
  }

  /** A media header's format (IMAGE, VIDEO, DOCUMENT), or null for a template without one. */
  static mediaFormatOf(template: TemplateView): MediaFormat | null {
    const format = template.headerFormat;
    return format && format !== 'TEXT' ? format : null;
  }

  /**
   * Checks and sends. `uploaded` is the header's file the agent uploaded (already checked against
   * the header's types and size and stored); otherwise a media header needs `headerMedia.link`.
   */
  async send(principal: Principal, id: string, input: TemplateMessageInput, uploaded?: NewAttachment): Promise<MessageView> {
    const { template } = await this.prepare(principal, id, input);
    const named = template.parameterFormat === 'NAMED';
    const bodyNames = named ? (template.bodyParameterNames ?? []) : [];
    const headerNames = named ? (template.headerParameterNames ?? []) : [];
    if (!Array.isArray(input.bodyParameters)) throw invalid('bodyParameters', 'bodyParameters must be a list of texts');
    if (input.headerParameters !== undefined && !Array.isArray(input.headerParameters))
      throw invalid('headerParameters', 'headerParameters must be a list of texts');
    const bodyParameters = input.bodyParameters;
    if (bodyParameters.length !== template.parameterCount) {
      const expected = named ? ` (${bodyNames.join(', ')})` : '';
      throw invalid(
        'bodyParameters',
        `Template ${template.name} takes ${template.parameterCount} body parameters${expected} (got ${bodyParameters.length})`,
      );
    }
    const headerParameters = input.headerParameters ?? [];
    if (headerParameters.length !== template.headerParameterCount) {
      throw invalid(
        'headerParameters',
        `Template ${template.name} takes ${template.headerParameterCount} header parameters (got ${headerParameters.length})`,
      );
    }
    const mediaFormat = TemplateSendService.mediaFormatOf(template);
    let headerMedia: StoredTemplate['headerMedia'];
    if (uploaded) {
      if (!mediaFormat) throw invalid('file', `Template ${template.name} has no image, video or document header`);
      headerMedia = { kind: mediaFormat.toLowerCase() as 'image' | 'video' | 'document', attachment: true, fileName: uploaded.fileName };
    } else {
      // The desk gives a link or uploads the file; a provider media id is not the agent's to know.
      if (input.headerMedia && (input.headerMedia as { id?: unknown }).id !== undefined) {
        throw invalid('headerMedia', 'headerMedia takes a link (https URL); upload a file through template-messages/media');
      }
      const problem = headerMediaProblem(template.headerFormat ?? null, input.headerMedia ?? null, 'headerMedia');
      if (problem) throw invalid('headerMedia', problem);
      if (mediaFormat && input.headerMedia) {
        const fileName = input.headerMedia.fileName?.trim();
        headerMedia = {
          kind: mediaFormat.toLowerCase() as 'image' | 'video' | 'document',
          link: input.headerMedia.link.trim(),
          ...(fileName ? { fileName } : {}),
        };
      }
    }

    // The desk shows what the customer reads (header, then body); a rendered text longer than a
    // message is cut (the provider sends the template itself).
    const render = (text: string, values: string[], names: string[]) =>
      named ? renderNamed(text, Object.fromEntries(names.map((name, index) => [name, values[index]]))) : renderTemplate(text, values);
    const rendered = [
      template.headerText ? render(template.headerText, headerParameters, headerNames) : '',
      render(template.body, bodyParameters, bodyNames),
    ]
      .filter(Boolean)
      .join('\n');
    const text = Array.from(rendered).slice(0, LIMITS.maxMessageLength).join('');
    return this.desk.send(principal, id, {
      text,
      clientMessageId: input.clientMessageId,
      ...(uploaded ? { attachments: [uploaded] } : {}),
      template: {
        name: template.name,
        language: template.language,
        bodyParameters,
        ...(headerParameters.length ? { headerParameters } : {}),
        ...(named ? { parameterNames: { header: headerNames, body: bodyNames } } : {}),
        ...(headerMedia ? { headerMedia } : {}),
      },
    });
  }
}
