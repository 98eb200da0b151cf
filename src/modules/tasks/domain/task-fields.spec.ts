import { ValidationError } from '../../../shared/errors/app-error.js';
import { cleanTitle } from './task-fields.js';

// Text limits count characters (code points), as PostgreSQL's char_length does: an emoji outside the BMP is one
// character but two UTF-16 units, so a `.length` check would refuse 101–200 of them.
describe('a task title counts code points', () => {
  it('takes 200 emoji, refuses one more, refuses blank and 201 ASCII characters', () => {
    expect(() => cleanTitle('😀'.repeat(200))).not.toThrow();
    expect(() => cleanTitle('😀'.repeat(200 + 1))).toThrow(ValidationError);
    expect(() => cleanTitle('   ')).toThrow(ValidationError);
    expect(() => cleanTitle('x'.repeat(200 + 1))).toThrow(ValidationError);
  });
});
