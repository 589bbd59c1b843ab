// Sign-in without an identity provider: the person pastes an API key or user token once; the
// gateway checks it and answers with a session cookie the page never sees (HttpOnly).
import { ApiError, type Session, signIn } from './api.js';
import { fill, h } from './dom.js';

export function showSignIn(main: HTMLElement, signedIn: (session: Session) => void, notice?: string): void {
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
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : 'Something went wrong.';
}
