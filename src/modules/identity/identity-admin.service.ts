import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { PasswordHasher } from './password-hasher.js';
import { UserRepository } from './user.repository.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Operator-only identity writes (the admin CLI): companies and users have no REST creation route. */
@Injectable()
export class IdentityAdminService {
  constructor(
    private readonly users: UserRepository,
    private readonly passwords: PasswordHasher,
  ) {}

  async createCompany(rawName: string): Promise<{ uuid: string; name: string }> {
    const name = rawName.trim();
    if (name.length < 1 || name.length > 200) throw new ValidationError('Company name must be 1-200 characters');
    const company = await this.users.insertCompany({ uuid: randomUUID(), name });
    return { uuid: company.uuid, name: company.name };
  }

  async createUser(input: { companyUuid: string; email: string; name: string; password: string }): Promise<{ uuid: string; email: string; name: string; companyUuid: string }> {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > 320) throw new ValidationError(`Invalid email: ${input.email}`);
    const name = input.name.trim();
    if (name.length < 1 || name.length > 200) throw new ValidationError('User name must be 1-200 characters');
    if (input.password.length < 8 || input.password.length > 256) throw new ValidationError('Password must be 8-256 characters');
    const company = await this.users.company(input.companyUuid);
    if (!company) throw new NotFoundError('Company');
    if (await this.users.emailTaken(email)) throw new ConflictError(`A user with email ${email} already exists`);
    const passwordHash = await this.passwords.hash(input.password);
    const user = await this.users.insertUser({ uuid: randomUUID(), companyUuid: company.uuid, email, name, passwordHash }).catch((err: unknown) => {
      // A concurrent creation of the same email.
      if ((err as { code?: string }).code === '23505') throw new ConflictError(`A user with email ${email} already exists`);
      throw err;
    });
    return { uuid: user.uuid, email: user.email, name: user.name, companyUuid: user.companyUuid };
  }

  async userExists(email: string): Promise<boolean> {
    return this.users.emailTaken(email.trim().toLowerCase());
  }
}
