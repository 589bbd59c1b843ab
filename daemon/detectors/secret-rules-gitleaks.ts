// gitleaks' default rule set (config/gitleaks.toml at commit 009e025, MIT; see secret-rules.NOTICE)
// translated to data: ids, regexes (RE2 syntax, as gitleaks writes them), keywords, entropy floors
// and allow-lists are gitleaks'. Our changes are marked `ours:`. The rules sit in gitleaks' order
// (by id) in two tables and generic-api-key between them; this module joins them in that order
// (a rule's index picks its RE2 heap) and holds gitleaks' global allow-list and the rules left out.
import type { SecretRule } from './secret-rule-types.js';
import { GITLEAKS_RULES_1PASSWORD_TO_GCP } from './secret-rules-gitleaks-1password-to-gcp.js';
import { genericRules } from './secret-rules-gitleaks-generic.js';
import { GITLEAKS_RULES_GITHUB_TO_ZENDESK } from './secret-rules-gitleaks-github-to-zendesk.js';

export const GITLEAKS_RULES: readonly SecretRule[] = [
  ...GITLEAKS_RULES_1PASSWORD_TO_GCP,
  ...genericRules(),
  ...GITLEAKS_RULES_GITHUB_TO_ZENDESK,
];

/** gitleaks' global allow-list: applied to every rule's secret. Path entries are left out (no paths here). */
export const GITLEAKS_GLOBAL_ALLOW: readonly string[] = [
  '(?i)^true|false|null$',
  String.raw`^(?i:a+|b+|c+|d+|e+|f+|g+|h+|i+|j+|k+|l+|m+|n+|o+|p+|q+|r+|s+|t+|u+|v+|w+|x+|y+|z+|\*+|\.+)$`,
  String.raw`^\$(?:\d+|{\d+})$`,
  String.raw`^\$(?:[A-Z_]+|[a-z_]+)$`,
  String.raw`^\${(?:[A-Z_]+|[a-z_]+)}$`,
  String.raw`^\{\{[ \t]*[\w ().|]+[ \t]*}}$`,
  String.raw`^\$\{\{[ \t]*(?:(?:env|github|secrets|vars)(?:\.[A-Za-z]\w+)+[\w "'&./=|]*)[ \t]*}}$`,
  String.raw`^%(?:[A-Z_]+|[a-z_]+)%$`,
  String.raw`^%[+\-# 0]?[bcdeEfFgGoOpqstTUvxX]$`,
  String.raw`^\{\d{0,2}}$`,
  String.raw`^@(?:[A-Z_]+|[a-z_]+)@$`,
  String.raw`^/Users/(?i)[a-z0-9]+/[\w .-/]+$`,
  String.raw`^/(?:bin|etc|home|opt|tmp|usr|var)/[\w ./-]+$`,
];
export const GITLEAKS_GLOBAL_STOPWORDS: readonly string[] = ['014df517-39d1-4453-b7b3-9930c563627c', 'abcdefghijklmnopqrstuvwxyz'];

/** Rules of gitleaks.toml not translated, and why. */
export const GITLEAKS_DROPPED: readonly { id: string; why: string }[] = [
  { id: 'pkcs12-file', why: 'a path-only rule (*.p12, *.pfx file names); a prompt has no path' },
  { id: 'hashicorp-tf-password', why: 'scoped to *.tf/*.hcl paths; without the path it is a looser generic-api-key, which already runs' },
];
