// zod schemas of the agent endpoints, shared by the daemon and gatewayctl. Registration and
// update bodies are not strict: the specification says unknown fields are silently ignored.
import { z } from 'zod';

export const AGENT_STATUSES = ['PENDING_APPROVAL', 'ACTIVE', 'PAUSED', 'SUSPENDED', 'REJECTED', 'REVOKED'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export const RULES = ['ALLOW', 'LOG_ONLY', 'REQUIRE_APPROVAL', 'DENY'] as const;
export type Rule = (typeof RULES)[number];

export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export const TOOL_ACTIONS = ['read', 'write', 'delete', 'execute', 'other'] as const;
export const PROFILES = ['safe', 'balanced', 'full_access'] as const;
export type Profile = (typeof PROFILES)[number];

const riskList = z.array(z.enum(RISK_LEVELS)).max(RISK_LEVELS.length);
const actionList = z.array(z.enum(TOOL_ACTIONS)).max(TOOL_ACTIONS.length);

export const capabilityModelSchema = z
  .object({
    profile: z.enum([...PROFILES, 'custom']),
    deny: z.object({ risk_levels: riskList, actions: actionList }).strict(),
    require_approval: z.object({ risk_levels: riskList, actions: actionList }).strict(),
    unknown_tools: z.enum(['REQUIRE_APPROVAL', 'DENY']),
  })
  .strict();
export type CapabilityModel = z.infer<typeof capabilityModelSchema>;

export const RISK_CLASSES = ['MINIMAL', 'LIMITED', 'HIGH', 'UNACCEPTABLE'] as const;

const text = (max = 2000) => z.string().trim().max(max);
const userId = z.string().trim().min(1).max(200);
const riskClass = z
  .string()
  .transform((v) => v.trim().toUpperCase())
  .pipe(z.enum(RISK_CLASSES));
const jsonObject = z.record(z.string(), z.unknown());
const stringList = z.array(z.string().max(200)).max(200);

export const agentRegisterBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: text().optional(),
  agent_type: text(200).optional(),
  model: text(200).optional(),
  risk_classification: riskClass.optional(),
  purpose_description: text().optional(),
  intended_purpose: text().optional(),
  intended_users: text().optional(),
  known_limitations: text().optional(),
  requires_human_oversight: z.boolean().optional(),
  annex_iii_domain: text(200).optional(),
  prohibited_screen_result: text(200).optional(),
  provider_or_deployer: text(200).optional(),
  responsible_person_id: userId.optional(),
  technical_lead_id: userId.optional(),
  approval_authority_id: userId.optional(),
  tags: stringList.optional(),
  permissions: stringList.optional(),
  infrastructure_permissions: jsonObject.optional(),
  framework: text(200).optional(),
  protection_profile: z.enum(PROFILES).optional(),
});

export const agentPatchBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  description: text().nullable().optional(),
  status: z.enum(AGENT_STATUSES).optional(),
  suspended_reason: text().nullable().optional(),
  risk_classification: riskClass.nullable().optional(),
  requires_human_oversight: z.boolean().optional(),
  permitted_tools: z.array(z.string().max(200)).max(1000).nullable().optional(),
  fria_assessment: jsonObject.nullable().optional(),
  transparency_disclosure: jsonObject.nullable().optional(),
  responsible_person_id: userId.nullable().optional(),
  technical_lead_id: userId.nullable().optional(),
  approval_authority_id: userId.nullable().optional(),
  infrastructure_permissions: jsonObject.optional(),
  capability_model: capabilityModelSchema.optional(),
  framework: text(200).nullable().optional(),
});

export const transitionBody = z.object({ reason: text().optional() });

export const agentListQuery = z.object({
  status: z.enum(AGENT_STATUSES).optional(),
  risk_classification: riskClass.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  cursor: z.string().min(1).max(100).optional(),
});
