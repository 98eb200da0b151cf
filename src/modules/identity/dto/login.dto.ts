import { TextField } from '../../../shared/validation/fields.js';

export class LoginDto {
  @TextField({ maxLength: 320, example: 'demo@example.com' }) email: string;
  @TextField({ maxLength: 1024 }) password: string;
}
