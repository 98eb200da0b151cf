import { paging } from './paging.js';
import { restPaging } from './rest-paging.js';

describe('REST paging', () => {
  it('clamps limit and offset and never rejects them', () => {
    expect(restPaging({ limit: '0' })).toEqual({ limit: 1, offset: 0 });
    expect(restPaging({ limit: '1000' })).toEqual({ limit: 100, offset: 0 });
    expect(restPaging({ limit: 'abc', offset: '-5' })).toEqual({ limit: 20, offset: 0 });
    expect(restPaging({ limit: '5.5', offset: '7' })).toEqual({ limit: 20, offset: 7 });
    expect(paging(restPaging({ limit: '10', offset: '25' }))).toEqual({ page: 3, pageSize: 10, offset: 25 });
  });

  it('validates page and pageSize like the tools', () => {
    expect(paging(restPaging({ page: '2', pageSize: '5' }))).toEqual({ page: 2, pageSize: 5, offset: 5 });
    expect(() => paging(restPaging({ pageSize: '500' }))).toThrow('Invalid arguments');
    expect(() => restPaging({ page: 'x' })).toThrow('Invalid input');
    expect(paging(restPaging({}))).toEqual({ page: 1, pageSize: 20, offset: 0 });
  });
});
