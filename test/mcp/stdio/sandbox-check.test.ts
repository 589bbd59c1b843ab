// Whether stdio servers can run here: bubblewrap and prlimit present, or the unsafe setting.
import t from 'tap';
import { checkSandbox } from '../../../daemon/mcp/stdio/sandbox-check.js';

t.test('with bubblewrap and prlimit installed: sandboxed, whatever the unsafe setting says', async (t) => {
  t.same(await checkSandbox(false), { mode: 'sandboxed' });
  t.same(await checkSandbox(true), { mode: 'sandboxed' });
});

t.test('bubblewrap missing: refused with a reason that names the fix; the unsafe setting runs them unconfined', async (t) => {
  const bins = { bwrap: '/nonexistent/bwrap', prlimit: '/usr/bin/prlimit' };
  const refused = await checkSandbox(false, bins);
  t.equal(refused.mode, 'unavailable');
  t.match((refused as { reason: string }).reason, /\/nonexistent\/bwrap \(Debian package bubblewrap\).*GATEWAY_STDIO_UNSAFE_NO_SANDBOX=1/);
  const unsafe = await checkSandbox(true, bins);
  t.equal(unsafe.mode, 'unsafe');
  t.match((unsafe as { reason: string }).reason, /runs them unconfined/);
});
