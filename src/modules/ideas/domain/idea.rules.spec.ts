import { ValidationError } from '../../../shared/errors/app-error.js';
import { ideaTitle } from './idea.rules.js';

// Text limits count characters (code points), as PostgreSQL's char_length does: an emoji outside the BMP is one
// character but two UTF-16 units, so a `.length` check would refuse 101–200 of them.
describe('an idea title counts code points', () => {
  it('takes 200 emoji, refuses one more, refuses blank and 201 ASCII characters', () => {
    expect(() => ideaTitle('😀'.repeat(200))).not.toThrow();
    expect(() => ideaTitle('😀'.repeat(200 + 1))).toThrow(ValidationError);
    expect(() => ideaTitle('   ')).toThrow(ValidationError);
    expect(() => ideaTitle('x'.repeat(200 + 1))).toThrow(ValidationError);
  });
});
