// The console's entry: signed in (a live session cookie), the navigation and the page the address
// selects (console/pages.ts); otherwise the sign-in form. The header names who the session acts as
// and offers sign-out.
import { readSession, type Session, signOut, useSession } from './api.js';
import { fill, h } from './dom.js';
import { hashOf, PAGES, type Route, routeOf } from './pages.js';
import { messageOf, showSignIn } from './sign-in.js';

const main = document.getElementById('main') as HTMLElement;
const who = document.getElementById('who') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
let stopPage: () => void = () => undefined;
let current: { session: Session; route: Route } | null = null;

function signedOut(notice?: string): void {
  stopPage();
  stopPage = () => undefined;
  current = null;
  useSession(null);
  fill(who);
  fill(nav);
  showSignIn(main, signedIn, notice);
}

function showRoute(session: Session): void {
  const route = routeOf(window.location.hash);
  // The inbox follows a notification's `#approval=<id>` itself, without being shown again.
  if (current && current.route.page === route.page && current.route.rest === route.rest) return;
  current = { session, route };
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.page === route.page.name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  stopPage();
  stopPage = route.page.show(main, session, route.rest);
  document.title = `${route.page.title} · Governance gateway console`;
  main.focus();
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
  fill(nav, h('ul', {}, ...PAGES.map((p) => h('li', {}, h('a', { attrs: { href: hashOf(p.name), 'data-page': p.name } }, p.title)))));
  current = null;
  showRoute(session);
}

window.addEventListener('hashchange', () => {
  if (current) showRoute(current.session);
});

readSession().then(signedIn, () => signedOut());
