import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { AppException } from './app.exception';

/** Route ids are UUIDs; anything else is a 400 that names the parameter. */
@Injectable()
export class ParseUuidPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (!isUUID(value)) {
      const field = metadata.data ?? 'id';
      const message = `${field} must be a UUID`;
      throw new AppException('validation', { message, data: { fields: { [field]: [message] }, issues: [{ field, rule: 'isUuid' }] } });
    }
    return value;
  }
}
