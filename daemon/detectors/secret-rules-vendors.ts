// Our rules for vendor token formats that gitleaks' default set (secret-rules-gitleaks.ts) leaves
// out, and for secrets in headers and command-line flags. Each regex is written from the vendor's
// documented format: a literal prefix, then the body's alphabet and length (a range where vendors
// have changed lengths). The prefix is the keyword, so a rule runs only near its prefix.
import { END } from './secret-rules-gitleaks-builders.js';
import type { SecretRule } from './secret-rule-types.js';

const EDGE = String.raw`(?:^|[^A-Za-z0-9_-])`;

function token(id: string, entity: string, body: string, keywords: string[], opt: Partial<SecretRule> = {}): SecretRule {
  return { id, entity, regex: EDGE + '(' + body + ')' + END, keywords, entropy: 3, span: [0, 400], score: 0.9, source: 'local', ...opt };
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export const VENDOR_RULES: readonly SecretRule[] = [
  // Webhook signing secrets (Stripe, Svix / Standard Webhooks): whsec_ and base64.
  token('webhook-signing-secret', 'WEBHOOK_SIGNING_SECRET', 'whsec_[A-Za-z0-9+/=]{24,}', ['whsec_']),
  token('groq-api-key', 'GROQ_API_KEY', 'gsk_[A-Za-z0-9]{48,56}', ['gsk_'], { entropy: 3.5 }),
  token('xai-api-key', 'XAI_API_KEY', 'xai-[A-Za-z0-9]{70,90}', ['xai-'], { entropy: 3.5 }),
  token('replicate-api-token', 'REPLICATE_API_TOKEN', 'r8_[A-Za-z0-9]{37}', ['r8_'], { entropy: 3.5 }),
  token('openrouter-api-key', 'OPENROUTER_API_KEY', 'sk-or-v1-[a-f0-9]{64}', ['sk-or-v1-']),
  token('langsmith-api-key', 'LANGSMITH_API_KEY', 'lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}', ['lsv2_']),
  token('pinecone-api-key', 'PINECONE_API_KEY', 'pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,80}', ['pcsk_'], { entropy: 3.5 }),
  token('nvidia-api-key', 'NVIDIA_API_KEY', 'nvapi-[A-Za-z0-9_-]{60,70}', ['nvapi-'], { entropy: 3.5 }),
  token('tavily-api-key', 'TAVILY_API_KEY', 'tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}', ['tvly-']),
  token('firecrawl-api-key', 'FIRECRAWL_API_KEY', 'fc-[a-f0-9]{32}', ['fc-']),
  token('elevenlabs-api-key', 'ELEVENLABS_API_KEY', 'sk_[a-f0-9]{48}', ['sk_']),
  // OpenAI and Anthropic keys of any length (gitleaks' rules want one length and, for OpenAI, the T3BlbkFJ marker).
  token('openai-project-key', 'OPENAI_API_KEY', 'sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}', ['sk-proj-', 'sk-svcacct-', 'sk-admin-'], {
    entropy: 3.5,
  }),
  token('anthropic-key-any-length', 'ANTHROPIC_API_KEY', 'sk-ant-(?:api|admin|oat|ort)\\d\\d-[A-Za-z0-9_-]{40,}', ['sk-ant-'], {
    entropy: 3.5,
  }),
  token('docker-hub-token', 'DOCKER_HUB_TOKEN', 'dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}', ['dckr_']),
  token('nuget-api-key', 'NUGET_API_KEY', 'oy2[a-z0-9]{43}', ['oy2'], { entropy: 3.5 }),
  token('bitbucket-app-password', 'BITBUCKET_APP_PASSWORD', 'ATBB[A-Za-z0-9_=.-]{28,}', ['atbb'], { entropy: 3.5 }),
  token('buildkite-token', 'BUILDKITE_TOKEN', 'bkua_[a-f0-9]{40}', ['bkua_']),
  token('circleci-token', 'CIRCLECI_TOKEN', 'CCIP(?:AT|RJ)_[A-Za-z0-9]{18,26}_[a-f0-9]{40}', ['ccipat_', 'cciprj_']),
  token('sonarqube-token', 'SONARQUBE_TOKEN', 'sq[pua]_[a-f0-9]{40}', ['sqp_', 'squ_', 'sqa_']),
  token('doppler-token', 'DOPPLER_API_TOKEN', 'dp\\.(?:st|sa|ct|scim|audit)\\.[A-Za-z0-9_-]{40,44}', [
    'dp.st.',
    'dp.sa.',
    'dp.ct.',
    'dp.scim.',
    'dp.audit.',
  ]),
  token('netlify-personal-token', 'NETLIFY_TOKEN', 'nfp_[A-Za-z0-9]{36}', ['nfp_'], { entropy: 3.5 }),
  token('render-api-key', 'RENDER_API_KEY', 'rnd_[A-Za-z0-9]{32}', ['rnd_'], { entropy: 3.5 }),
  token('supabase-token', 'SUPABASE_TOKEN', 'sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{30,}', ['sbp_', 'sb_secret_']),
  token('neon-api-key', 'NEON_API_KEY', 'napi_[a-z0-9]{64}', ['napi_'], { entropy: 3.5 }),
  token('notion-integration-secret', 'NOTION_API_TOKEN', 'secret_[A-Za-z0-9]{43}', ['secret_'], { entropy: 4, random: true }),
  token('figma-token', 'FIGMA_TOKEN', 'figd_[A-Za-z0-9_-]{40}', ['figd_'], { entropy: 3.5 }),
  token('airtable-personal-token', 'AIRTABLE_TOKEN', 'pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}', ['pat'], { span: [0, 100] }),
  token('contentful-management-token', 'CONTENTFUL_TOKEN', 'CFPAT-[A-Za-z0-9_-]{43}', ['cfpat-'], { entropy: 3.5 }),
  token('mapbox-secret-token', 'MAPBOX_SECRET_TOKEN', 'sk\\.eyJ[A-Za-z0-9_-]{40,}\\.[A-Za-z0-9_-]{20,}', ['sk.eyj']),
  token('google-oauth-client-secret', 'GOOGLE_OAUTH_CLIENT_SECRET', 'GOCSPX-[A-Za-z0-9_-]{28}', ['gocspx-']),
  token('google-oauth-access-token', 'GOOGLE_OAUTH_TOKEN', 'ya29\\.[A-Za-z0-9_-]{30,}', ['ya29.'], { entropy: 3.5 }),
  token('google-oauth-refresh-token', 'GOOGLE_OAUTH_TOKEN', '1//0[A-Za-z0-9_-]{40,}', ['1//0'], { entropy: 3.5 }),
  token('tencent-secret-id', 'TENCENT_SECRET_ID', 'AKID[A-Za-z0-9]{32}', ['akid'], { entropy: 3.5 }),
  token('scaleway-access-key', 'SCALEWAY_ACCESS_KEY', 'SCW[A-Z0-9]{17}', ['scw'], { random: true }),
  token('square-oauth-secret', 'SQUARE_OAUTH_SECRET', 'sq0csp-[A-Za-z0-9_-]{43}', ['sq0csp-']),
  token('razorpay-key', 'RAZORPAY_KEY', 'rzp_(?:live|test)_[A-Za-z0-9]{14}', ['rzp_']),
  token('resend-api-key', 'RESEND_API_KEY', 're_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}', ['re_'], { random: true }),
  token('mailgun-key', 'MAILGUN_API_KEY', 'key-[a-f0-9]{32}', ['key-']),
  token('hubspot-private-app-token', 'HUBSPOT_TOKEN', `pat-(?:na|eu)1-${UUID}`, ['pat-na1-', 'pat-eu1-']),
  token('clickup-token', 'CLICKUP_TOKEN', 'pk_\\d{6,10}_[A-Z0-9]{32}', ['pk_']),
  token('woocommerce-key', 'WOOCOMMERCE_KEY', 'c[ks]_[a-f0-9]{40}', ['ck_', 'cs_']),
  token('tailscale-key', 'TAILSCALE_KEY', 'tskey-(?:api|auth|client|scim|webhook)-[A-Za-z0-9]+-[A-Za-z0-9]{16,}', ['tskey-']),
  token('salesforce-access-token', 'SALESFORCE_TOKEN', '00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}', ['00d'], {
    entropy: 3.5,
    span: [0, 600],
  }),
  {
    id: 'discord-webhook-url',
    entity: 'DISCORD_WEBHOOK_URL',
    regex: String.raw`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/[A-Za-z0-9_-]{60,70}`,
    keywords: ['discord.com/api/webhooks', 'discordapp.com/api/webhooks'],
    secretGroup: 0,
    span: [40, 200],
    score: 0.95,
    source: 'local',
  },
  {
    id: 'zapier-webhook-url',
    entity: 'ZAPIER_WEBHOOK_URL',
    regex: String.raw`https://hooks\.zapier\.com/hooks/catch/\d+/[A-Za-z0-9]+/?`,
    keywords: ['hooks.zapier.com'],
    secretGroup: 0,
    span: [10, 100],
    score: 0.9,
    source: 'local',
  },
  // Azure Service Bus, Event Hubs, Relay and SignalR connection strings: the key after SharedAccessKey=.
  {
    id: 'azure-shared-access-key',
    entity: 'AZURE_SHARED_ACCESS_KEY',
    regex: String.raw`(?i)\bSharedAccessKey\s*=\s*([a-z0-9+/]{42,44}=)`,
    keywords: ['sharedaccesskey='],
    entropy: 4,
    span: [0, 100],
    score: 0.95,
    source: 'local',
  },
  // A PuTTY private key file: its header, then the private lines.
  {
    id: 'putty-private-key',
    entity: 'PRIVATE_KEY',
    regex: String.raw`PuTTY-User-Key-File-[23]: [^\n]*(?:\r?\n[^\n]*){0,8}?\r?\nPrivate-Lines: \d+\r?\n[A-Za-z0-9+/=]{16,}`,
    keywords: ['putty-user-key-file-'],
    secretGroup: 0,
    span: [0, 8192],
    score: 1,
    source: 'local',
  },
];
