// The gaps of issue 17: secrets in assignments whatever the syntax, private keys without an END
// line or with a body that is not base64, credentials in URLs of any scheme, and the token formats
// gitleaks' rules miss. Every key here is fake (random, never issued) in its vendor's format.
import t from 'tap';
import { looksLikeSecret, secretsDetector, TooManySecretsError } from '../../daemon/detectors/secrets.js';

const config = secretsDetector.parseConfig(undefined);
const found = (text: string): Array<[string, string]> =>
  secretsDetector.detect(text, config).map((f) => [f.entity, text.slice(f.start, f.end)]);
const values = (text: string): string[] => found(text).map(([, v]) => v);

t.test('a generated or chosen value assigned to a secret-like name, in every syntax', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['python', 'password = "hT9#kQ2!vLp7Zr"', 'hT9#kQ2!vLp7Zr'],
    ['javascript', "const apiKey = 'Zq8vLw3nPx7rTb2mKc9s';", 'Zq8vLw3nPx7rTb2mKc9s'],
    ['ruby', ":password => 'Tr0ub4dor&3x'", 'Tr0ub4dor&3x'],
    ['nested yaml', 'database:\n  host: db.internal\n  password: XkpQmNvLrtWzHgBa\n', 'XkpQmNvLrtWzHgBa'],
    ['ini', '[smtp]\nhost = mail.internal\npasswd = qwErTyUiOpAsDfGh\n', 'qwErTyUiOpAsDfGh'],
    ['.env', 'DB_PASSWORD="x9!Kq#2mLp"\nAPI_KEY=b7f3e9a1c4d2e8f6a0b5c3d9e1f7a2b4', 'x9!Kq#2mLp'],
    ['.env bare', 'CLIENT_SECRET=Jq8sLk2V!nR5xTz9', 'Jq8sLk2V!nR5xTz9'],
    ['json', '{"db": {"password": "r8T!xq2#Lm9vKp"}}', 'r8T!xq2#Lm9vKp'],
    ['json, escaped in a string', String.raw`{\"access_key\": \"Zq8-vLw3_nPx7rTb2mKc9s!\"}`, 'Zq8-vLw3_nPx7rTb2mKc9s!'],
    ['header', 'X-Auth-Token: Qm4n!T8vXk2Lp9Rz', 'Qm4n!T8vXk2Lp9Rz'],
    ['prose', 'the admin pass: S3cr3t!Pa55, please rotate it', 'S3cr3t!Pa55'],
    ['xml', '<db><password>Xk7!pQ2mNv</password></db>', 'Xk7!pQ2mNv'],
    ['php', '$password = "Xk7!pQ2mNv";', 'Xk7!pQ2mNv'],
    ['php array', "'password' => 'Xk7!pQ2mNv',", 'Xk7!pQ2mNv'],
    ['go', 'apiKey := "Zq8vLw3n!Px7rTb"', 'Zq8vLw3n!Px7rTb'],
    ['java', 'private static final String SECRET_KEY = "Jq8sLk2V!nR5xTz9";', 'Jq8sLk2V!nR5xTz9'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} in a value is what is under test
    ['braces and dollars inside', "password = 'm{{h}o)p${e]nob(ody[finds>-_$#thisone}'", 'm{{h}o)p${e]nob(ody[finds>-_$#thisone}'],
  ];
  for (const [what, text, secret] of cases) t.ok(values(text).includes(secret), `${what}: ${JSON.stringify(found(text))}`);
  t.same(found('password: S3cr3t!Pa55.')[0], ['PASSWORD', 'S3cr3t!Pa55'], 'a full stop after a bare value is not part of it');
});

t.test('the password named in the supported languages', async (t) => {
  for (const [text, secret] of [
    ['Benutzer admin, Passwort: Tr0ub4dor&3x', 'Tr0ub4dor&3x'],
    ['Kennwort = Zk8#mQ2vLp', 'Zk8#mQ2vLp'],
    ['mot de passe : Xk7!pQ2mNv', 'Xk7!pQ2mNv'],
    ['La contraseña: Rk8v!Tq2mXp', 'Rk8v!Tq2mXp'],
    ['wachtwoord: Vt8q#Lx2mPz', 'Vt8q#Lx2mPz'],
    ['hasło: Hn7q!T2xLp9', 'Hn7q!T2xLp9'],
  ] as const) {
    t.same(found(text), [['PASSWORD', secret]], text);
  }
  for (const text of ['Das Passwort: mindestens 12 Zeichen', 'contraseña: cambiar', 'Mot de passe : choisissez-en un long', 'hasło: zmień'])
    t.same(found(text), [], text);
});

t.test('placeholders, references and ordinary configuration stay allowed', async (t) => {
  for (const text of [
    'password: changeme',
    'password: "your_password_here"',
    'token: <your-token>',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} reference is the placeholder under test
    'SECRET=${SECRET}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} reference is the placeholder under test
    'password: ${DB_PASSWORD}',
    'password: ********',
    'API_KEY=xxxxxxxxxxxxxxxxxxxx',
    'const apiKey = process.env.API_KEY;',
    "password = os.environ['DB_PASSWORD']",
    'API_KEY = os.getenv("API_KEY")',
    'password = generate_password(length=16)',
    'password = config.db.password',
    'token_type: Bearer',
    'secretName: mysql-credentials-prod',
    'auth_url = "https://login.example.com/oauth2/token"',
    'password_file: /run/secrets/db_password',
    'private_key: ./certs/server.key',
    'token: AuthorizationHeader',
    'auth:\n  enabled: true\n  provider: github',
    'server:\n  port: 8080\n  host: 0.0.0.0\nlogging:\n  level: info',
    'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
    'readonly auth: Readonly<Record<string, string>>;',
    'const token = req.params._meta?.progressToken;',
    'const TOKENS = [gw.adminToken, projectKey];',
    "auth: { bearer: 'upstream-token-1' }",
    'https://admin:pw@db.acme.internal/',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} in a value is what is under test
    '<password>${PASSWORD}</password>',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} in a value is what is under test
    'url: "prefix-${TOKEN}-suffix"\ntoken: "{{ .Values.token }}"',
    "password = '%(password)s'",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} in a value is what is under test
    "const TOKEN = `upstream-${randomBytes(16).toString('hex')}`;",
    '{"password": null, "token": ""}',
    'I forgot my password: is there a reset link?',
    '"integrity": "sha512-Xk2nQp9vLm7RtW4zYc8sJh3FdG6aB1eK0iUoPqZzY1Xk2nQp9vLm7RtW4zYc8sJh3FdG6aB1eK0iUoPq=="',
    'request_id: 3f2b8c1e-9d4a-4e7b-8c2f-1a6d5e9b0c3f',
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  ]) {
    t.same(found(text), [], JSON.stringify(text));
  }
});

t.test('looksLikeSecret: classes, alternation and entropy', async (t) => {
  for (const s of ['S3cr3t!Pa55', 'Summer2024!', 'XkpQmNvLrtWzHgBa', 'b7f3e9a1c4d2e8f6', 'hT9#kQ2!vLp7Zr']) t.ok(looksLikeSecret(s), s);
  for (const s of ['short1!', 'DatabaseHost', 'your_password_here', 'ChangeMe', 'aaaaaaaaaaaa1', 'correcthorsebattery', '12345678901'])
    t.notOk(looksLikeSecret(s), s);
});

const PEM_BODY = [
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu',
];

t.test('a private key from its BEGIN line: no END line, or a body that is not base64', async (t) => {
  const noEnd = `-----BEGIN PRIVATE KEY-----\n${PEM_BODY.join('\n')}`;
  t.same(found(`here is my key:\n${noEnd}\n\nwhy does it fail?`), [['PRIVATE_KEY', noEnd]]);
  const ec = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49';
  t.same(found(ec), [['PRIVATE_KEY', ec]], 'one line, cut off');
  const odd =
    '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\nMIIEp_AIBAAK!CAQEA7x-9vQ2mL7pR4tN8wK3z\n-----END RSA PRIVATE KEY-----';
  t.same(found(odd), [['PRIVATE_KEY', odd]], 'encryption headers and characters outside base64, with its END line');
  const short = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
  t.same(found(short), [['PRIVATE_KEY', short]], 'a body shorter than 64 characters');
  const full = `-----BEGIN PRIVATE KEY-----\n${PEM_BODY.join('\n')}\n-----END PRIVATE KEY-----`;
  t.same(
    secretsDetector.detect(full, config).map((f) => f.rule),
    ['private-key'],
    'a complete block stays one finding',
  );
});

t.test('private-key text that holds no key passes', async (t) => {
  for (const text of [
    'The file starts with -----BEGIN PRIVATE KEY----- and ends with -----END PRIVATE KEY-----.',
    '-----BEGIN PRIVATE KEY-----\n<your private key here>\n-----END PRIVATE KEY-----',
    '-----BEGIN RSA PRIVATE KEY-----\nXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\n-----END RSA PRIVATE KEY-----',
    '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----',
    `-----BEGIN PUBLIC KEY-----\n${PEM_BODY.join('\n')}\n-----END PUBLIC KEY-----`,
  ]) {
    t.same(found(text), [], JSON.stringify(text));
  }
});

t.test('credentials in URLs of any scheme; a user without a password or a placeholder password passes', async (t) => {
  t.same(found('https://alice:Hn7qT2xLp9@api.example.com/v1'), [['CREDENTIALS_IN_URL', 'Hn7qT2xLp9']]);
  t.same(found('mqtt://iot:Vt8qLx2mPz@broker:1883'), [['CREDENTIALS_IN_URL', 'Vt8qLx2mPz']]);
  t.same(found('amqp://guest:Rk8vTq2mXp@rabbit:5672/'), [['CONNECTION_STRING', 'Rk8vTq2mXp']]);
  for (const text of [
    'https://user@host.example.com/path',
    'https://user:password@example.com',
    'https://user:<password>@example.com',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} reference is the placeholder under test
    'redis://:${REDIS_PASSWORD}@cache:6379',
    'see http://[::1]:8080/health',
  ]) {
    t.same(found(text), [], text);
  }
});

t.test('token formats: Discord, Telegram, Mailchimp, Artifactory, Braintree, FCM, Okta, Dropbox, Twilio, Slack, JWT', async (t) => {
  const cases: Array<[string, string, string]> = [
    [
      'DISCORD_BOT_TOKEN',
      'client.login("MTA4NjY5NzQ0NTk5NjU0NDE0Nw.GbX4rT.Xk2nQp9vLm7RtW4zYc8sJh3FdG6aB1eK0iUoPq")',
      'MTA4NjY5NzQ0NTk5NjU0NDE0Nw.GbX4rT.Xk2nQp9vLm7RtW4zYc8sJh3FdG6aB1eK0iUoPq',
    ],
    [
      'DISCORD_BOT_TOKEN',
      'bot token NzkyNzE1NDU0MTk2MDg4ODQy.X-hvzA.Ovy4MCQywSkoMRRclStW4xAYK7I ok',
      'NzkyNzE1NDU0MTk2MDg4ODQy.X-hvzA.Ovy4MCQywSkoMRRclStW4xAYK7I',
    ],
    ['TELEGRAM_BOT_TOKEN', "bot = Bot('1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0')", '1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0'],
    ['MAILCHIMP_API_KEY', 'key 3fa8c9e1b2d47f6a0c5e8b1d9f2a4c7e-us12', '3fa8c9e1b2d47f6a0c5e8b1d9f2a4c7e-us12'],
    [
      'ARTIFACTORY_API_KEY',
      'AKCp8jQ7vLm3nR9tX2wK5zB8cF1hJ4sD6gY0uE3iO7aQ2nM5bV9xZ4kP1lT8rW6yH3jG5fN7eA',
      'AKCp8jQ7vLm3nR9tX2wK5zB8cF1hJ4sD6gY0uE3iO7aQ2nM5bV9xZ4kP1lT8rW6yH3jG5fN7eA',
    ],
    ['ARTIFACTORY_API_KEY', 'curl -H "X-JFrog-Art-Api: AKCp5e2g7Qx9Lm3"', 'AKCp5e2g7Qx9Lm3'],
    ['ARTIFACTORY_REFERENCE_TOKEN', 'cmVmdGtuOjAxOjE3MDAwMDAwMDA6Wk5xTTJ2Y3BMaGRvR3NX', 'cmVmdGtuOjAxOjE3MDAwMDAwMDA6Wk5xTTJ2Y3BMaGRvR3NX'],
    [
      'BRAINTREE_ACCESS_TOKEN',
      'access_token$production$x7k2mq9pl4vt8rzw$8f3e1c9a2b7d4e6f0a5c8b1d3e9f2a7c',
      'access_token$production$x7k2mq9pl4vt8rzw$8f3e1c9a2b7d4e6f0a5c8b1d3e9f2a7c',
    ],
    [
      'FIREBASE_FCM_KEY',
      `key=AAAAe7Kx9pQ:APA91b${'H3kLq9TzX2vNm8Rw4Pc7YbF5dGj6Hs1K'.repeat(4)}`,
      `AAAAe7Kx9pQ:APA91b${'H3kLq9TzX2vNm8Rw4Pc7YbF5dGj6Hs1K'.repeat(4)}`,
    ],
    [
      'OKTA_API_TOKEN',
      'The Okta API token is 00aBcD3fG5hJ7kL9mN1pQ3rS5tU7vW9xY1zA3bC5dE, use it',
      '00aBcD3fG5hJ7kL9mN1pQ3rS5tU7vW9xY1zA3bC5dE',
    ],
    [
      'DROPBOX_SHORT_LIVED_API_TOKEN',
      `sl.B${'Xa1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'.repeat(4)}`,
      `sl.B${'Xa1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'.repeat(4)}`,
    ],
    [
      'DROPBOX_LONG_LIVED_API_TOKEN',
      'token Xk2nQp9vLm7AAAAAAAAAAXk2nQp9vLm7RtW4zYc8sJh3FdG6aB1eK0iUoPqZzY1a',
      'Xk2nQp9vLm7AAAAAAAAAAXk2nQp9vLm7RtW4zYc8sJh3FdG6aB1eK0iUoPqZzY1a',
    ],
    ['TWILIO_ACCOUNT_SID', "account_sid = 'AC3f9e1d7b2c8a4f6e0d5c9b3a7e1f2d4c'", 'AC3f9e1d7b2c8a4f6e0d5c9b3a7e1f2d4c'],
    ['TWILIO_API_KEY', 'SK2b9c4e7f1a3d5b8c0e2f4a6b8d0c1e3f', 'SK2b9c4e7f1a3d5b8c0e2f4a6b8d0c1e3f'],
    ['SLACK_TOKEN', 'xoxp-483726591-3kH8vQ2mT9xL', 'xoxp-483726591-3kH8vQ2mT9xL'],
    ['SLACK_TOKEN', 'SLACK_BOT=xoxb-34532454-e039d02840a0b9379c', 'xoxb-34532454-e039d02840a0b9379c'],
    ['JWT', 'token eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9. accepted', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.'],
    [
      'JWT',
      'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4LV8ifQ.abc_def-ghi123XYZ',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4LV8ifQ.abc_def-ghi123XYZ',
    ],
  ];
  const more: Array<[string, string, string]> = [
    [
      'DISCORD_BOT_TOKEN',
      'MZ1yGvKTjE0rY0cV8i47CjAa.uRHQPq.Xb1Mk2nEhe-4iUcrGOuegj57zMC',
      'MZ1yGvKTjE0rY0cV8i47CjAa.uRHQPq.Xb1Mk2nEhe-4iUcrGOuegj57zMC',
    ],
    ['MAILCHIMP_API_KEY', 'MAILCHIMP=343ea45721923ed956e2b38c31db76aa-us30', '343ea45721923ed956e2b38c31db76aa-us30'],
    [
      'DISCORD_BOT_TOKEN',
      'DISCORD_TOKEN=MZ1yGvKTjE0rY0cV8i47CjAa.uRHQPq.Xb1Mk2nEhe-4iUcrGOuegj57zMC',
      'MZ1yGvKTjE0rY0cV8i47CjAa.uRHQPq.Xb1Mk2nEhe-4iUcrGOuegj57zMC',
    ],
    ['TWILIO_ACCOUNT_SID', 'TWILIO_ACCOUNT_SID=AC3f9e1d7b2c8a4f6e0d5c9b3a7e1f2d4c', 'AC3f9e1d7b2c8a4f6e0d5c9b3a7e1f2d4c'],
    ['ARTIFACTORY_API_KEY', 'artifactory password AP2Xk2nQp9vLm7RtW4z', 'AP2Xk2nQp9vLm7RtW4z'],
    [
      'FIREBASE_FCM_KEY',
      `AAAAe7Kx9pQ:${'Xk2nQp9vLm7RtW4zYc8sJh3FdG6aB1eK0iUoPq'.repeat(3)}`,
      `AAAAe7Kx9pQ:${'Xk2nQp9vLm7RtW4zYc8sJh3FdG6aB1eK0iUoPq'.repeat(3)}`,
    ],
    [
      'JWT',
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
    ],
  ];
  for (const [entity, text, secret] of [...cases, ...more]) t.same(found(text), [[entity, secret]], `${entity} in ${text.slice(0, 40)}`);
  const sid = "account_sid = 'AC3f9e1d7b2c8a4f6e0d5c9b3a7e1f2d4c'\nauth_token = '9f8e7d6c5b4a39281706f5e4d3c2b1a0'";
  t.ok(values(sid).includes('9f8e7d6c5b4a39281706f5e4d3c2b1a0'), 'the auth token next to a Twilio account SID');
});

t.test('look-alikes of those formats pass', async (t) => {
  for (const text of [
    'xoxb-your-token-here',
    'apikey-us12 and 00000000000000000000000000000000-us1',
    'ACCOUNT_SID=ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
    'Moderation notes: NDA signed, MTA agreement pending. NTA.',
    'at 12:30:45 the job 1700000000:finished ran',
    'header.payload.signature',
    'commit 9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c',
    'SKIP this step; ACK received; AKC registry',
    'The Okta org 00 has 42 users',
    'sl. 4, ch. 2',
    'Move MyNamespaceOfTheCompanyX.module.submoduleWithAVeryLongNameHere now',
    'MZ1yGvKTj0rY0cV8i47CjAa.uHQPq.Xb1Mk2nEhe-4icrGOuegj57zMC',
    'APAC region, APPLE, APIGateway',
    `{"w": "${'Kx9/AP2Xk2nQp9vLm7RtW4z+AKCp5e2g7Qx9Lm3n/AC3f9e1d7b2c8a4f6e0d5c9b3a7e1f2d4c+'.repeat(300)}"}`,
  ]) {
    t.same(found(text), [], text);
  }
});

t.test('floods of a name and its operator stay linear and cheap', async (t) => {
  for (const unit of ['token=', 'password=', 'api_key=', 'password: Xk7!pQ2mNv\n']) {
    const text = unit.repeat(Math.ceil(100_000 / unit.length));
    const started = process.cpuUsage();
    let failed: unknown = null;
    try {
      secretsDetector.detect(text, config);
    } catch (err) {
      failed = err;
    }
    const used = process.cpuUsage(started);
    // 5,000 real-looking passwords are more than one call reports: the call fails (closed), it does not stop looking.
    if (unit.includes('Xk7')) t.ok(failed instanceof TooManySecretsError, 'more than 1000 secrets: TooManySecretsError');
    else t.equal(failed, null, 'no secret in a flood of names');
    const ms = (used.user + used.system) / 1000;
    t.comment(`${JSON.stringify(unit)} x ${(text.length / 1024).toFixed(0)} KB: ${ms.toFixed(0)} ms CPU`);
    // A match is split into its groups by RE2's NFA at ~20 ms per KB: a whole-flood match used to take seconds.
    t.ok(ms < 1500, `${JSON.stringify(unit)} under 1.5 s`);
  }
});
