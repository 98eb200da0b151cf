import { ValidationError } from '../../shared/errors/app-error.js';
import { sessionName } from './session.checks.js';

// Text limits count characters (code points), as PostgreSQL's char_length does: an emoji outside the BMP is one
// character but two UTF-16 units, so a `.length` check would refuse 101–200 of them.
describe('a session name counts code points', () => {
  it('takes 200 emoji, refuses one more, refuses blank and 201 ASCII characters', () => {
    expect(() => sessionName('😀'.repeat(200))).not.toThrow();
    expect(() => sessionName('😀'.repeat(200 + 1))).toThrow(ValidationError);
    expect(() => sessionName('   ')).toThrow(ValidationError);
    expect(() => sessionName('x'.repeat(200 + 1))).toThrow(ValidationError);
  });
});
