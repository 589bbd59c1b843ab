// Sign-in: by the organisation's identity provider when the gateway offers it (a link to the
// gateway's /start route, which sends the browser to the issuer and back), or by pasting an API key
// or user token once. Either way the gateway answers with a session cookie the page never sees
// (HttpOnly). A failed sign-in by the issuer comes back as ?sign_in_error=<reason>, worded here.
import { ApiError, readIdentityProvider, type Session, signIn } from './api.js';
import { fill, h } from './dom.js';

/** What each reason the gateway gives for a refused sign-in by the issuer means to the person. */
const SIGN_IN_ERRORS: Readonly<Record<string, string>> = {
  sign_in_expired: 'The sign-in took too long or was already used: sign in again.',
  state_mismatch: 'The sign-in did not match the one this browser began: sign in again.',
  provider_refused: 'The identity provider did not sign you in.',
  issuer_unreachable: 'The identity provider cannot be reached right now: try again later.',
  sign_in_busy: 'Too many sign-ins are under way right now: try again in a few minutes.',
  code_refused: 'The identity provider refused to complete the sign-in: sign in again.',
  id_token_invalid: 'The identity provider’s answer could not be verified.',
  nonce_mismatch: 'The identity provider’s answer was not for this sign-in: sign in again.',
  claims_refused: 'Your account does not name a project of this gateway.',
  no_role: 'Your account has no role on this gateway: ask an administrator.',
  unknown_project: 'Your account names a project this gateway does not have.',
};

/** The notice a returning sign-in by the issuer leaves in the address, taken out of it. */
function returnedNotice(): string | undefined {
  const url = new URL(window.location.href);
  const reason = url.searchParams.get('sign_in_error');
  if (reason === null) return undefined;
  url.searchParams.delete('sign_in_error');
  window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  return SIGN_IN_ERRORS[reason] ?? 'The sign-in failed: sign in again.';
}

export function showSignIn(main: HTMLElement, signedIn: (session: Session) => void, notice?: string): void {
  notice ??= returnedNotice();
  const key = h('input', {
    attrs: {
      id: 'key',
      name: 'key',
      type: 'password',
      autocomplete: 'off',
      spellcheck: 'false',
      required: '',
      'aria-describedby': 'key-help',
    },
  });
  const status = h('p', { class: 'status', attrs: { role: 'status', id: 'sign-in-status' } }, notice ?? '');
  const button = h('button', { attrs: { type: 'submit' } }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'card sign-in',
      attrs: { 'aria-labelledby': 'sign-in-title' },
      on: {
        submit: (event) => {
          event.preventDefault();
          button.disabled = true;
          status.textContent = 'Signing in…';
          signIn(key.value).then(
            (session) => {
              key.value = '';
              signedIn(session);
            },
            (err: unknown) => {
              button.disabled = false;
              status.textContent = err instanceof ApiError && err.status === 401 ? 'The gateway does not know this key.' : messageOf(err);
              key.focus();
            },
          );
        },
      },
    },
    h('h1', { attrs: { id: 'sign-in-title' } }, 'Sign in'),
    h('label', { attrs: { for: 'key' } }, 'API key or user token'),
    key,
    h('p', { class: 'help', attrs: { id: 'key-help' } }, 'Pasted once: the gateway keeps a session for this browser, never the key.'),
    button,
    status,
  );
  fill(main, form);
  key.focus();
  readIdentityProvider().then(
    (idp) => {
      const link = h('a', { class: 'button', attrs: { href: idp.start, id: 'sign-in-idp' } }, `Sign in with ${idp.issuer}`);
      const label = form.querySelector('label');
      form.insertBefore(link, label);
      form.insertBefore(h('p', { class: 'help' }, 'Or with a key:'), label);
    },
    () => undefined, // not offered: the key is the only way in
  );
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : 'Something went wrong.';
}
