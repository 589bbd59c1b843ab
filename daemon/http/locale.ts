// Error messages in the caller's language on the routes that localize them (the verify endpoints):
// the locale Accept-Language asks for (q-values honoured, English when nothing matches), and an
// error's message in it. English is the error table's (shared/errors.ts); German and French are
// here, for the codes a verify caller can meet.
import { ERRORS } from '../../shared/errors.js';

export const LOCALES = ['en', 'de', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

type Localized =
  | 'validation_error'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'project_emergency_stopped'
  | 'internal_error'
  | 'service_unavailable';

const de: Record<Localized, string> = {
  validation_error: 'Die Anfrage ist ungültig.',
  unauthorized: 'Fehlende, unbekannte oder widerrufene Zugangsdaten.',
  forbidden: 'Diesen Zugangsdaten fehlt die für diese Route nötige Rolle.',
  not_found: 'Diese Ressource gibt es nicht.',
  payload_too_large: 'Der Anfragekörper ist größer als das eingestellte Limit.',
  unsupported_media_type: 'Anfragekörper müssen JSON sein (Content-Type: application/json).',
  rate_limited: 'Das Anfragelimit des Projekts ist überschritten; erneut versuchen nach der Zeit in Retry-After.',
  project_emergency_stopped: 'Der Not-Aus des Projekts ist aktiv.',
  internal_error: 'Ein unerwarteter Fehler ist aufgetreten; bitte die Request-ID angeben.',
  service_unavailable: 'Ein benötigtes Teilsystem ist nicht verfügbar; später erneut versuchen.',
};

const fr: Record<Localized, string> = {
  validation_error: 'La requête n’est pas valide.',
  unauthorized: 'Identifiants manquants, inconnus ou révoqués.',
  forbidden: 'Ces identifiants n’ont pas le rôle requis par cette route.',
  not_found: 'Ressource introuvable.',
  payload_too_large: 'Le corps de la requête dépasse la limite configurée.',
  unsupported_media_type: 'Le corps des requêtes doit être du JSON (Content-Type: application/json).',
  rate_limited: 'La limite de débit du projet est dépassée ; réessayez après le délai indiqué dans Retry-After.',
  project_emergency_stopped: 'L’arrêt d’urgence du projet est actif.',
  internal_error: 'Une erreur inattendue s’est produite ; indiquez l’identifiant de requête.',
  service_unavailable: 'Un sous-système nécessaire est indisponible ; réessayez plus tard.',
};

const TRANSLATIONS: Record<Exclude<Locale, 'en'>, Record<Localized, string>> = { de, fr };

/** The best locale for an Accept-Language header (RFC 9110 q-values; English by default). */
export function pickLocale(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return 'en';
  const ranked = acceptLanguage
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { lang: tag.trim().toLowerCase().split('-')[0]!, q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.q > 0 && !Number.isNaN(r.q))
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) if ((LOCALES as readonly string[]).includes(r.lang)) return r.lang as Locale;
  return 'en';
}

function isLocalized(code: string): code is Localized {
  return Object.hasOwn(de, code);
}

/**
 * An error's message in the caller's language: the table's wording for a localized code (in
 * English too, so that every language says the same), with a validation detail (field names) kept
 * as sent; any other code keeps its English message.
 */
export function localizedError(locale: Locale, code: string, englishMessage: string): string {
  if (!isLocalized(code)) return englishMessage;
  const base = locale === 'en' ? ERRORS[code].message : TRANSLATIONS[locale][code];
  const detail = /^Invalid request: (.*)$/s.exec(englishMessage)?.[1];
  return detail ? `${base} ${detail}` : base;
}
