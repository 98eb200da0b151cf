import { ValidationError } from '../../shared/errors/app-error.js';
import { validateCommentContent } from './comment.service.js';

// Text limits count characters (code points), as PostgreSQL's char_length does: an emoji outside the BMP is one
// character but two UTF-16 units, so a `.length` check would refuse half of the allowed emoji.
describe('a comment counts code points', () => {
  it('takes 20000 emoji, refuses one more, refuses blank and 20000 + 1 ASCII characters', () => {
    expect(() => validateCommentContent('😀'.repeat(20000))).not.toThrow();
    expect(() => validateCommentContent('😀'.repeat(20000 + 1))).toThrow(ValidationError);
    expect(() => validateCommentContent('   ')).toThrow(ValidationError);
    expect(() => validateCommentContent('x'.repeat(20000 + 1))).toThrow(ValidationError);
  });
});
