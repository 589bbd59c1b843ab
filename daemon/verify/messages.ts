// The one message catalog of the verify endpoints: every `reason` and every error message a verify
// caller can see, in English, German and French, chosen by Accept-Language (q-values honoured,
// English when nothing matches). Placeholders are {name}.

export const LOCALES = ['en', 'de', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

type Catalog = Record<string, string>;

const en: Catalog = {
  'reason.BLOCKED': 'Blocked by policy "{policy}".',
  'reason.MODIFIED': 'Sensitive data was masked by policy "{policy}".',
  'reason.FLAGGED': 'Flagged by policy "{policy}".',
  'reason.PENDING_APPROVAL': 'Held for human approval by policy "{policy}".',
  'reason.WARN': 'Policy "{policy}" asks you to confirm before sending.',
  'reason.JUSTIFY': 'Policy "{policy}" asks for a justification before sending.',
  'reason.REDIRECT': 'Policy "{policy}" redirects this request.',
  'reason.attachment_unmaskable': 'An attachment holds data that policy "{policy}" masks, and files cannot be masked: blocked.',
  'reason.attachment_uninspectable': 'An attachment could not be inspected ({type}) and the project blocks what it cannot inspect.',
  'reason.fail_closed': 'A check could not complete ({error_class}); blocked because the gateway fails closed.',
  'reason.AGENT_EMERGENCY_STOP': 'The agent is suspended.',
  'reason.AGENT_PAUSED': 'The agent is paused.',
  'reason.AGENT_PENDING_APPROVAL': 'The agent is not approved yet.',
  'reason.AGENT_REJECTED': 'The agent was rejected.',
  'reason.AGENT_REVOKED': 'The agent was revoked.',
  'error.validation_error': 'The request is not valid.',
  'error.unauthorized': 'Missing, unknown or revoked credentials.',
  'error.forbidden': 'This credential lacks the role this route needs.',
  'error.not_found': 'No such resource.',
  'error.payload_too_large': 'The request body is larger than the configured limit.',
  'error.unsupported_media_type': 'Request bodies must be JSON (Content-Type: application/json).',
  'error.rate_limited': 'The project rate limit is exceeded; retry after the time in Retry-After.',
  'error.project_emergency_stopped': 'The project emergency stop is active.',
  'error.internal_error': 'An unexpected error occurred; quote the request id when reporting it.',
  'error.service_unavailable': 'A subsystem the gateway needs is unavailable; retry with backoff.',
};

const de: Catalog = {
  'reason.BLOCKED': 'Durch die Richtlinie „{policy}“ blockiert.',
  'reason.MODIFIED': 'Sensible Daten wurden durch die Richtlinie „{policy}“ maskiert.',
  'reason.FLAGGED': 'Durch die Richtlinie „{policy}“ markiert.',
  'reason.PENDING_APPROVAL': 'Durch die Richtlinie „{policy}“ zur menschlichen Freigabe zurückgehalten.',
  'reason.WARN': 'Die Richtlinie „{policy}“ verlangt vor dem Senden eine Bestätigung.',
  'reason.JUSTIFY': 'Die Richtlinie „{policy}“ verlangt vor dem Senden eine Begründung.',
  'reason.REDIRECT': 'Die Richtlinie „{policy}“ leitet diese Anfrage um.',
  'reason.attachment_unmaskable': 'Ein Anhang enthält Daten, die die Richtlinie „{policy}“ maskiert, und Dateien können nicht maskiert werden: blockiert.',
  'reason.attachment_uninspectable': 'Ein Anhang konnte nicht geprüft werden ({type}), und das Projekt blockiert, was es nicht prüfen kann.',
  'reason.fail_closed': 'Eine Prüfung konnte nicht abgeschlossen werden ({error_class}); blockiert, da das Gateway im Zweifel sperrt.',
  'reason.AGENT_EMERGENCY_STOP': 'Der Agent ist gesperrt.',
  'reason.AGENT_PAUSED': 'Der Agent ist pausiert.',
  'reason.AGENT_PENDING_APPROVAL': 'Der Agent ist noch nicht freigegeben.',
  'reason.AGENT_REJECTED': 'Der Agent wurde abgelehnt.',
  'reason.AGENT_REVOKED': 'Der Agent wurde widerrufen.',
  'error.validation_error': 'Die Anfrage ist ungültig.',
  'error.unauthorized': 'Fehlende, unbekannte oder widerrufene Zugangsdaten.',
  'error.forbidden': 'Diesen Zugangsdaten fehlt die für diese Route nötige Rolle.',
  'error.not_found': 'Diese Ressource gibt es nicht.',
  'error.payload_too_large': 'Der Anfragekörper ist größer als das eingestellte Limit.',
  'error.unsupported_media_type': 'Anfragekörper müssen JSON sein (Content-Type: application/json).',
  'error.rate_limited': 'Das Anfragelimit des Projekts ist überschritten; erneut versuchen nach der Zeit in Retry-After.',
  'error.project_emergency_stopped': 'Der Not-Aus des Projekts ist aktiv.',
  'error.internal_error': 'Ein unerwarteter Fehler ist aufgetreten; bitte die Request-ID angeben.',
  'error.service_unavailable': 'Ein benötigtes Teilsystem ist nicht verfügbar; später erneut versuchen.',
};

const fr: Catalog = {
  'reason.BLOCKED': 'Bloqué par la politique « {policy} ».',
  'reason.MODIFIED': 'Des données sensibles ont été masquées par la politique « {policy} ».',
  'reason.FLAGGED': 'Signalé par la politique « {policy} ».',
  'reason.PENDING_APPROVAL': 'Retenu pour approbation humaine par la politique « {policy} ».',
  'reason.WARN': 'La politique « {policy} » demande une confirmation avant l’envoi.',
  'reason.JUSTIFY': 'La politique « {policy} » demande une justification avant l’envoi.',
  'reason.REDIRECT': 'La politique « {policy} » redirige cette requête.',
  'reason.attachment_unmaskable': 'Une pièce jointe contient des données que la politique « {policy} » masque, et un fichier ne peut pas être masqué : bloqué.',
  'reason.attachment_uninspectable': 'Une pièce jointe n’a pas pu être inspectée ({type}) et le projet bloque ce qu’il ne peut pas inspecter.',
  'reason.fail_closed': 'Une vérification n’a pas pu aboutir ({error_class}) ; bloqué car la passerelle échoue en mode fermé.',
  'reason.AGENT_EMERGENCY_STOP': 'L’agent est suspendu.',
  'reason.AGENT_PAUSED': 'L’agent est en pause.',
  'reason.AGENT_PENDING_APPROVAL': 'L’agent n’est pas encore approuvé.',
  'reason.AGENT_REJECTED': 'L’agent a été rejeté.',
  'reason.AGENT_REVOKED': 'L’agent a été révoqué.',
  'error.validation_error': 'La requête n’est pas valide.',
  'error.unauthorized': 'Identifiants manquants, inconnus ou révoqués.',
  'error.forbidden': 'Ces identifiants n’ont pas le rôle requis par cette route.',
  'error.not_found': 'Ressource introuvable.',
  'error.payload_too_large': 'Le corps de la requête dépasse la limite configurée.',
  'error.unsupported_media_type': 'Le corps des requêtes doit être du JSON (Content-Type: application/json).',
  'error.rate_limited': 'La limite de débit du projet est dépassée ; réessayez après le délai indiqué dans Retry-After.',
  'error.project_emergency_stopped': 'L’arrêt d’urgence du projet est actif.',
  'error.internal_error': 'Une erreur inattendue s’est produite ; indiquez l’identifiant de requête.',
  'error.service_unavailable': 'Un sous-système nécessaire est indisponible ; réessayez plus tard.',
};

const CATALOGS: Record<Locale, Catalog> = { en, de, fr };

/** The best catalog for an Accept-Language header (RFC 9110 q-values; English by default). */
export function pickLocale(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return 'en';
  const ranked = acceptLanguage.split(',').slice(0, 20).map((part, i) => {
    const [tag = '', ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return { lang: tag.trim().toLowerCase().split('-')[0]!, q: q === undefined ? 1 : Number(q), i };
  }).filter((r) => r.q > 0 && !Number.isNaN(r.q)).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) if ((LOCALES as readonly string[]).includes(r.lang)) return r.lang as Locale;
  return 'en';
}

export function message(locale: Locale, key: string, params: Record<string, string> = {}): string {
  const template = CATALOGS[locale][key] ?? en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `{${name}}`);
}

/** Every key of every catalog is in English, and every English key in the others (a test checks it). */
export function catalogKeys(locale: Locale): string[] {
  return Object.keys(CATALOGS[locale]);
}

/** An error's message in the caller's language; validation details (field names) are kept as sent. */
export function localizedError(locale: Locale, code: string, englishMessage: string): string {
  const base = CATALOGS[locale][`error.${code}`];
  if (!base) return englishMessage;
  const detail = /^Invalid request: (.*)$/s.exec(englishMessage)?.[1];
  return detail ? `${base} ${detail}` : base;
}
