import { ValidationError } from '../../../shared/errors/app-error.js';
import { projectName } from './project.rules.js';

// Text limits count characters (code points), as PostgreSQL's char_length does: an emoji outside the BMP is one
// character but two UTF-16 units, so a `.length` check would refuse 101–200 of them.
describe('a project name counts code points', () => {
  it('takes 200 emoji, refuses one more, refuses blank and 201 ASCII characters', () => {
    expect(() => projectName('😀'.repeat(200))).not.toThrow();
    expect(() => projectName('😀'.repeat(200 + 1))).toThrow(ValidationError);
    expect(() => projectName('   ')).toThrow(ValidationError);
    expect(() => projectName('x'.repeat(200 + 1))).toThrow(ValidationError);
  });
});
