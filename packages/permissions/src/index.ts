export type {
  ApprovalAnswer,
  ApprovalCallback,
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalRequest,
} from './approval.js';
export {
  type AuditLog,
  type AuditLogOptions,
  createAuditLog,
  type DenialCause,
  type PermissionDecision,
} from './audit-log.js';
export { type DeriveBindingsOptions, deriveBindings, type PolicySource } from './derive-bindings.js';
export { createPathGuard, type PathGuard, type PathGuardOptions, pathGuardProblem } from './path-guard.js';
export { createPolicy, isPolicy, type Policy, type PolicyCaller, policyForCaller } from './policy.js';
export { type UnmatchedToolPattern, unmatchedToolPatterns } from './policy-coverage.js';
export {
  type ArgumentPredicate,
  type PolicyDefinition,
  type PolicyEffect,
  type PolicyRule,
  policyEffects,
} from './policy-definition.js';
export { evaluatePolicy, type MatchedRule, mayBeAllowed, type PolicyVerdict } from './policy-evaluate.js';
export { loadPolicyFile, parsePolicy } from './policy-file.js';
export type { PolicyNamingOptions } from './policy-tool-names.js';
export type { JsonSchema, ParsedInput, Tool, ToolExecuteContext } from './tool.js';
export {
  isReservedWord,
  type ToolBindingName,
  type ToolBindingNameOptions,
  toolBindingName,
  toolBindingNames,
} from './tool-binding-name.js';
