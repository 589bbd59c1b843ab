-- The web console's sign-in by the organisation's identity provider (daemon/api/console-oidc.ts).
--
-- console_oidc_sign_ins: a sign-in under way, between the redirect to the issuer and its return.
-- The browser holds a random id in a short-lived HttpOnly cookie; only the id's SHA-256 is kept.
-- The row holds what binds the return to this browser (state), the ID token to this request
-- (nonce) and the code to this client (the PKCE verifier). It is deleted when the browser returns,
-- whatever the outcome, so it is used once; rows never returned to are deleted as new ones come.
create table console_oidc_sign_ins (
  id_hash       bytea primary key,
  state         text not null,
  nonce         text not null,
  code_verifier text not null,
  expires_at    timestamptz not null
);

create index console_oidc_sign_ins_by_expiry on console_oidc_sign_ins (expires_at);

-- A console session opened by the identity provider acts as the person its ID token named, not as
-- a credential of this gateway: credential_id is then the person's stable `oidc:` id (the one their
-- access tokens' calls carry) and the subject columns say who they are and which role the claims
-- granted at sign-in. A key's session still names its credential row, and its lookup still joins
-- the credential (revoking it ends the session), so only the foreign key goes.
alter table console_sessions drop constraint console_sessions_credential_id_fkey;
alter table console_sessions
  add column subject_issuer text,
  add column subject_sub    text,
  add column subject_name   text,
  add column subject_role   text check (subject_role in ('viewer', 'editor', 'admin')),
  add column subject_agent  text,
  add constraint console_sessions_subject_whole check (
    (subject_sub is null) = (subject_issuer is null) and (subject_sub is null) = (subject_name is null)
    and (subject_sub is not null or (subject_role is null and subject_agent is null)));
