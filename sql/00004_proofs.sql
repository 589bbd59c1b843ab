-- Proofs over the trace chain: a per-project RFC 9162 Merkle tree whose leaves are the traces'
-- integrity hashes (leaf index = sequence_num - 1), and signed checkpoints of it.
--
-- merkle_state holds where the tree stands (size and the hashes of the complete subtrees that
-- make up its right edge), so the checkpoint worker appends new leaves without re-reading old ones.
-- merkle_nodes keeps the hash of every complete subtree of 256 leaves or more (level >= 8), so an
-- inclusion proof needs O(log n) stored nodes plus at most two blocks of 256 leaves, never the
-- whole chain. checkpoints are C2SP signed notes, append-only like the ledger.

create table merkle_state (
  project_id  text primary key references projects (id),
  size        bigint not null check (size >= 0),
  peaks       bytea not null check (length(peaks) % 32 = 0), -- the peak hashes concatenated, highest first
  updated_at  timestamptz not null default now()
);

create table merkle_nodes (
  project_id  text not null references projects (id),
  level       smallint not null check (level between 8 and 62),
  idx         bigint not null check (idx >= 0),
  hash        bytea not null check (length(hash) = 32),
  primary key (project_id, level, idx)
);

create table checkpoints (
  project_id  text not null references projects (id),
  tree_size   bigint not null check (tree_size > 0),
  root        bytea not null check (length(root) = 32),
  note        text not null,
  key_name    text not null,
  key_id      text not null,
  created_at  timestamptz not null default now(),
  primary key (project_id, tree_size)
);

create trigger checkpoints_append_only before update or delete on checkpoints
  for each row execute function ledger_refuse_change();
create trigger checkpoints_no_truncate before truncate on checkpoints
  for each statement execute function ledger_refuse_change();
create trigger merkle_nodes_append_only before update or delete on merkle_nodes
  for each row execute function ledger_refuse_change();
