import { Injectable } from '@nestjs/common';
import { hashPassword, SCRYPT, type ScryptParams } from './domain/credentials.js';

/**
 * Hashes the passwords of new users (docs/platform.md §2) with the service's scrypt parameters. Verification needs no
 * provider: every stored hash carries its own parameters. A provider so that a test context can override it with
 * cheaper parameters for the users it seeds (README "Testing"); the service itself always uses `SCRYPT`.
 */
@Injectable()
export class PasswordHasher {
  protected readonly params: ScryptParams = SCRYPT;

  hash(password: string): Promise<string> {
    return hashPassword(password, this.params);
  }
}
