import { Repository } from '../../shared/database/repository.js';
import { CompanyEntity, UserEntity } from './identity.entity.js';

/** The columns a new user row is given; the timestamps take their defaults. */
export type NewUserRow = Pick<UserEntity, 'uuid' | 'companyUuid' | 'email' | 'name' | 'passwordHash'>;

/**
 * Companies and their users (`company`, `app_user`: this module's tables, README "Table ownership"). Both are
 * created by the operator only; a user is found by email at sign-in (emails are unique across companies).
 */
export class UserRepository extends Repository {
  /** Inserts a new company; returns it as stored. */
  async insertCompany(row: Pick<CompanyEntity, 'uuid' | 'name'>): Promise<CompanyEntity> {
    const company = this.em.create(CompanyEntity, row);
    await this.em.save(CompanyEntity, company);
    return company;
  }

  /** A company, or null. */
  company(uuid: string): Promise<CompanyEntity | null> {
    return this.em.findOneBy(CompanyEntity, { uuid });
  }

  /** The company of a user already found. */
  companyOf(user: Pick<UserEntity, 'companyUuid'>): Promise<CompanyEntity> {
    return this.em.findOneByOrFail(CompanyEntity, { uuid: user.companyUuid });
  }

  /** The user with this (normalised) email, or null. */
  byEmail(email: string): Promise<UserEntity | null> {
    return this.em.findOne(UserEntity, { where: { email } });
  }

  /** Whether a user has this (normalised) email. */
  emailTaken(email: string): Promise<boolean> {
    return this.em.existsBy(UserEntity, { email });
  }

  /** Inserts a new user; returns it as stored. A taken email fails with the unique violation (23505). */
  async insertUser(row: NewUserRow): Promise<UserEntity> {
    const user = this.em.create(UserEntity, row);
    await this.em.save(UserEntity, user);
    return user;
  }
}
