// The verify endpoints' `reason` texts in English, German and French, in the locale Accept-Language
// chose (daemon/http/locale.ts, which also localizes their error messages). Placeholders are {name}.
// An agent's refusal reads as the proxy's does: its English is the JSON-RPC table's (shared/errors.ts).
import { MCP_RPC_ERRORS } from '../../shared/errors.js';
import type { Locale } from '../http/locale.js';

export type { Locale };

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
  'reason.AGENT_EMERGENCY_STOP': MCP_RPC_ERRORS.AGENT_EMERGENCY_STOP.message,
  'reason.AGENT_PAUSED': MCP_RPC_ERRORS.AGENT_PAUSED.message,
  'reason.AGENT_PENDING_APPROVAL': MCP_RPC_ERRORS.AGENT_PENDING_APPROVAL.message,
  'reason.AGENT_REJECTED': MCP_RPC_ERRORS.AGENT_REJECTED.message,
  'reason.AGENT_REVOKED': MCP_RPC_ERRORS.AGENT_REVOKED.message,
};

const de: Catalog = {
  'reason.BLOCKED': 'Durch die Richtlinie „{policy}“ blockiert.',
  'reason.MODIFIED': 'Sensible Daten wurden durch die Richtlinie „{policy}“ maskiert.',
  'reason.FLAGGED': 'Durch die Richtlinie „{policy}“ markiert.',
  'reason.PENDING_APPROVAL': 'Durch die Richtlinie „{policy}“ zur menschlichen Freigabe zurückgehalten.',
  'reason.WARN': 'Die Richtlinie „{policy}“ verlangt vor dem Senden eine Bestätigung.',
  'reason.JUSTIFY': 'Die Richtlinie „{policy}“ verlangt vor dem Senden eine Begründung.',
  'reason.REDIRECT': 'Die Richtlinie „{policy}“ leitet diese Anfrage um.',
  'reason.attachment_unmaskable':
    'Ein Anhang enthält Daten, die die Richtlinie „{policy}“ maskiert, und Dateien können nicht maskiert werden: blockiert.',
  'reason.attachment_uninspectable':
    'Ein Anhang konnte nicht geprüft werden ({type}), und das Projekt blockiert, was es nicht prüfen kann.',
  'reason.fail_closed': 'Eine Prüfung konnte nicht abgeschlossen werden ({error_class}); blockiert, da das Gateway im Zweifel sperrt.',
  'reason.AGENT_EMERGENCY_STOP': 'Der Agent ist gesperrt.',
  'reason.AGENT_PAUSED': 'Der Agent ist pausiert.',
  'reason.AGENT_PENDING_APPROVAL': 'Der Agent ist noch nicht freigegeben.',
  'reason.AGENT_REJECTED': 'Der Agent wurde abgelehnt.',
  'reason.AGENT_REVOKED': 'Der Agent wurde widerrufen.',
};

const fr: Catalog = {
  'reason.BLOCKED': 'Bloqué par la politique « {policy} ».',
  'reason.MODIFIED': 'Des données sensibles ont été masquées par la politique « {policy} ».',
  'reason.FLAGGED': 'Signalé par la politique « {policy} ».',
  'reason.PENDING_APPROVAL': 'Retenu pour approbation humaine par la politique « {policy} ».',
  'reason.WARN': 'La politique « {policy} » demande une confirmation avant l’envoi.',
  'reason.JUSTIFY': 'La politique « {policy} » demande une justification avant l’envoi.',
  'reason.REDIRECT': 'La politique « {policy} » redirige cette requête.',
  'reason.attachment_unmaskable':
    'Une pièce jointe contient des données que la politique « {policy} » masque, et un fichier ne peut pas être masqué : bloqué.',
  'reason.attachment_uninspectable':
    'Une pièce jointe n’a pas pu être inspectée ({type}) et le projet bloque ce qu’il ne peut pas inspecter.',
  'reason.fail_closed': 'Une vérification n’a pas pu aboutir ({error_class}) ; bloqué car la passerelle échoue en mode fermé.',
  'reason.AGENT_EMERGENCY_STOP': 'L’agent est suspendu.',
  'reason.AGENT_PAUSED': 'L’agent est en pause.',
  'reason.AGENT_PENDING_APPROVAL': 'L’agent n’est pas encore approuvé.',
  'reason.AGENT_REJECTED': 'L’agent a été rejeté.',
  'reason.AGENT_REVOKED': 'L’agent a été révoqué.',
};

const CATALOGS: Record<Locale, Catalog> = { en, de, fr };

export function message(locale: Locale, key: string, params: Record<string, string> = {}): string {
  const template = CATALOGS[locale][key] ?? en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `{${name}}`);
}

/** Every key of every catalog is in English, and every English key in the others (test/verify/messages.test.ts checks it). */
export function catalogKeys(locale: Locale): string[] {
  return Object.keys(CATALOGS[locale]);
}
