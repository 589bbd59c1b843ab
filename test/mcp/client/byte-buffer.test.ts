// ByteBuffer: the one buffer an upstream answer is read into, never past its bound.
import t from 'tap';
import { ByteBuffer } from '../../../daemon/mcp/client/byte-buffer.js';

t.test('keeps the bytes in order across growth, up to the bound and not one byte past it', async (t) => {
  const b = new ByteBuffer(10, 2);
  t.ok(b.append(Buffer.from('abc')), 'grows past its first size');
  t.ok(b.append(Buffer.from('defgh')));
  t.equal(b.bytes().toString(), 'abcdefgh');
  t.notOk(b.append(Buffer.from('ijk')), '11 bytes would pass the bound of 10');
  t.equal(b.bytes().toString(), 'abcdefgh', 'a refused append keeps nothing of its chunk');
  t.ok(b.append(Buffer.from('ij')), 'exactly the bound fits');
  t.equal(b.length, 10);
});

t.test('clear drops the bytes; a large buffer is let go, not kept for the next event', async (t) => {
  const big = new ByteBuffer(4 * 1024 * 1024, 16);
  big.append(Buffer.alloc(3 * 1024 * 1024, 1));
  const grown = big.bytes().buffer;
  big.clear();
  t.equal(big.length, 0);
  big.append(Buffer.from('x'));
  t.not(big.bytes().buffer, grown, 'a buffer grown past 1 MiB is replaced');
  const small = new ByteBuffer(1024, 16);
  small.append(Buffer.alloc(100, 1));
  const kept = small.bytes().buffer;
  small.clear();
  small.append(Buffer.from('y'));
  t.equal(small.bytes().buffer, kept, 'a small one is reused');
  t.equal(small.bytes().toString(), 'y');
});
