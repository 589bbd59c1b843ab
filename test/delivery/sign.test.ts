// Standard Webhooks signing: the specification's published test vector, the secret's form, and the
// headers of one attempt checked by the receiver's independent verifier.
import t from 'tap';
import { newSecret, sign, signatureHeaders } from '../../daemon/delivery/sign.js';
import { verifySignature } from '../helpers/webhook-receiver.js';

t.test('the Standard Webhooks test vector', async (t) => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  t.equal(
    sign(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  );
});

t.test('a new secret is whsec_ and 32 random bytes in base64', async (t) => {
  const a = newSecret();
  t.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.equal(Buffer.from(a.slice(6), 'base64').length, 32);
  t.not(a, newSecret());
});

t.test('the headers of an attempt verify, and only for this id, timestamp, body and secret', async (t) => {
  const secret = newSecret();
  const body = '{"type":"test","timestamp":"2026-11-27T00:00:00.000Z","data":{}}';
  const h = signatureHeaders(secret, 'msg_1', body, new Date(1_800_000_000_500));
  t.equal(h['webhook-id'], 'msg_1');
  t.equal(h['webhook-timestamp'], '1800000000', 'seconds');
  t.ok(verifySignature(secret, 'msg_1', '1800000000', body, h['webhook-signature']!));
  t.notOk(verifySignature(secret, 'msg_2', '1800000000', body, h['webhook-signature']!), 'another id');
  t.notOk(verifySignature(secret, 'msg_1', '1800000001', body, h['webhook-signature']!), 'another timestamp');
  t.notOk(verifySignature(secret, 'msg_1', '1800000000', body + ' ', h['webhook-signature']!), 'another body');
  t.notOk(verifySignature(newSecret(), 'msg_1', '1800000000', body, h['webhook-signature']!), 'another secret');
});
