// The console's entry: signed in (a live session cookie), the approvals inbox; otherwise the
// sign-in form. The header names who the session acts as and offers sign-out.
import { readSession, type Session, signOut, useSession } from './api.js';
import { showApprovals } from './approvals.js';
import { fill, h } from './dom.js';
import { messageOf, showSignIn } from './sign-in.js';

const main = document.getElementById('main') as HTMLElement;
const who = document.getElementById('who') as HTMLElement;
let stopPage: () => void = () => undefined;

function signedOut(notice?: string): void {
  stopPage();
  stopPage = () => undefined;
  useSession(null);
  fill(who);
  showSignIn(main, signedIn, notice);
}

function signedIn(session: Session): void {
  useSession(session, () => signedOut('Your session has ended: sign in again.'));
  const c = session.credential;
  const out = h('button', { class: 'link', attrs: { type: 'button' } }, 'Sign out');
  out.addEventListener('click', () => {
    signOut().then(
      () => signedOut('Signed out.'),
      (err: unknown) => signedOut(messageOf(err)),
    );
  });
  fill(who, h('span', {}, `${c.name} · ${c.role ?? 'no role'}`), out);
  stopPage();
  stopPage = showApprovals(main, session);
  main.focus();
}

readSession().then(signedIn, () => signedOut());
