-- Ledger anchoring: once per epoch one RFC 9162 tree is built over the newest signed checkpoint of
-- every project (attestation enabled) whose tree grew since its last anchored checkpoint, and its
-- root is sent in one EVM transaction (calldata "GWA1" || u64be epoch || root; shared/anchor-format.ts).
--
-- anchor_epochs is the worker's state machine (PENDING -> SUBMITTED -> ANCHORED, or FAILED and
-- re-submittable); what an epoch commits to (root, leaf count) never changes once written.
-- anchor_epoch_leaves says which checkpoint is leaf i of which epoch; append-only like the ledger.
-- A trace's flare_status / flare_tx_hash are derived from these tables, never written on the trace.

create table anchor_epochs (
  epoch                     bigint primary key check (epoch > 0),
  state                     text not null check (state in ('PENDING', 'SUBMITTED', 'ANCHORED', 'FAILED')),
  root                      bytea not null check (length(root) = 32),
  leaf_count                integer not null check (leaf_count > 0),
  chain_id                  bigint not null,
  from_address              text,
  nonce                     bigint,
  tx_hash                   text,                       -- the transaction that was mined, else the latest sent
  tx_hashes                 text[] not null default '{}', -- every transaction sent for this epoch (replacements)
  attempts                  integer not null default 0,
  max_fee_per_gas           numeric,
  max_priority_fee_per_gas  numeric,
  block_number              bigint,
  block_time                timestamptz,
  last_error                text,
  created_at                timestamptz not null default now(),
  submitted_at              timestamptz,
  anchored_at               timestamptz,
  updated_at                timestamptz not null default now()
);

create index anchor_epochs_open on anchor_epochs (epoch) where state <> 'ANCHORED';

create function anchor_epoch_commitment_fixed() returns trigger language plpgsql as $$
begin
  if new.epoch <> old.epoch or new.root <> old.root or new.leaf_count <> old.leaf_count or new.chain_id <> old.chain_id then
    raise exception 'anchor epoch % commitment is immutable', old.epoch using errcode = 'P0001';
  end if;
  return new;
end $$;

create trigger anchor_epochs_commitment before update on anchor_epochs
  for each row execute function anchor_epoch_commitment_fixed();
create trigger anchor_epochs_no_delete before delete on anchor_epochs
  for each row execute function ledger_refuse_change();

create table anchor_epoch_leaves (
  epoch       bigint not null references anchor_epochs (epoch),
  leaf_index  integer not null check (leaf_index >= 0),
  project_id  text not null,
  tree_size   bigint not null,
  primary key (epoch, leaf_index),
  unique (project_id, tree_size),
  foreign key (project_id, tree_size) references checkpoints (project_id, tree_size)
);

create trigger anchor_epoch_leaves_append_only before update or delete on anchor_epoch_leaves
  for each row execute function ledger_refuse_change();
create trigger anchor_epoch_leaves_no_truncate before truncate on anchor_epoch_leaves
  for each statement execute function ledger_refuse_change();
