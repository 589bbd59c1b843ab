// The person's side of a device sign-in (RFC 8628), done as a browser would against oidc-provider's
// own pages: open the verification page, enter the user code, confirm it, log in, consent. Plain
// HTTP with a cookie jar, following redirects by hand; forms are read from the HTML served.

export interface Page {
  readonly url: string;
  readonly status: number;
  readonly text: string;
}

interface Cookie {
  readonly value: string;
  readonly path: string;
}

export class Browser {
  private readonly jar = new Map<string, Cookie>();

  /** The Cookie header this browser sends to `url`. */
  cookieHeader(url: URL): string {
    return [...this.jar.entries()]
      .filter(([, c]) => url.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';').map((s) => s.trim());
      const cut = pair.indexOf('=');
      const name = pair.slice(0, cut);
      const value = pair.slice(cut + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const gone = value === '' || attrs.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now());
      if (gone) this.jar.delete(name);
      else this.jar.set(name, { value, path });
    }
  }

  /** One GET, its redirect not followed: the raw answer (its cookies kept). */
  async once(url: string): Promise<Response> {
    const at = new URL(url);
    const res = await fetch(at, { redirect: 'manual', headers: { cookie: this.cookieHeader(at) } });
    this.keep(res);
    return res;
  }

  /** Whether the jar holds a cookie of this name. */
  has(name: string): boolean {
    return this.jar.has(name);
  }

  /** One request, then its redirects (as GETs), to the page they end on; or to the first redirect `stopAt` accepts, not followed. */
  async open(url: string, form?: Record<string, string>, stopAt?: (target: URL) => boolean): Promise<Page> {
    let at = new URL(url);
    let init: RequestInit = form
      ? { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded' } }
      : { method: 'GET' };
    for (let hops = 0; hops < 10; hops += 1) {
      const res = await fetch(at, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: this.cookieHeader(at) } });
      this.keep(res);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        at = new URL(location, at);
        if (stopAt?.(at)) return { url: at.href, status: res.status, text: '' };
        init = { method: 'GET' };
        continue;
      }
      return { url: at.href, status: res.status, text: await res.text() };
    }
    throw new Error(`too many redirects from ${url}`);
  }
}

export function formOf(page: Page, id?: string): { action: string; fields: Record<string, string> } {
  const forms = [...page.text.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)];
  const form = id === undefined ? forms[0] : forms.find((f) => f[1]!.includes(`id="${id}"`));
  if (!form) throw new Error(`no form${id ? ` ${id}` : ''} on ${page.url} (${page.status}): ${page.text.slice(0, 300)}`);
  const action = /action="([^"]*)"/.exec(form[1]!)?.[1] ?? page.url;
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input\b([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(input[1]!)?.[1];
    const value = /value="([^"]*)"/.exec(input[1]!)?.[1];
    if (name && value !== undefined) fields[name] = value;
  }
  return { action: new URL(action, page.url).href, fields };
}

/** Enters `userCode` at the provider, confirms it, logs in as `login` and consents; returns the last page. */
export async function confirmDeviceCode(issuer: string, userCode: string, login: string): Promise<Page> {
  const b = new Browser();
  const entry = formOf(await b.open(`${issuer}/device`), 'op.deviceInputForm');
  const confirm = formOf(await b.open(entry.action, { ...entry.fields, user_code: userCode }), 'op.deviceConfirmForm');
  const loginPage = await b.open(confirm.action, confirm.fields);
  const loginForm = formOf(loginPage);
  const consentPage = await b.open(loginForm.action, { ...loginForm.fields, prompt: 'login', login, password: 'any password' });
  const consent = formOf(consentPage);
  return b.open(consent.action, { ...consent.fields, prompt: 'consent' });
}
