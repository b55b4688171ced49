// Thirty tool-search queries written BLIND on 2026-12-01: by someone who had not read the
// ranking/search code, had not run a search, and had not seen `catalogueQueries`. They were
// written from the catalogue in `large-catalogue.ts` alone. Each names the one tool that answers
// it; every tool is present in both `largeCatalogue(100)` and `largeCatalogue(500)`.
// Do not edit these queries (or their answers) to improve a score.
export const blindCatalogueQueries: readonly (readonly [query: string, tool: string])[] = [
  ['give money back to a customer who was charged twice', 'stripe__refund_payment'],
  ['slack post message', 'slack__create_message'],
  ['whos on cal right now for the backend schedule', 'pagerduty__who_is_on_call'],
  ['squash and merge PR #42', 'github__merge_pull_request'],
  ['find a 30 minute slot when all three of us are free next week', 'calendar__find_free_time'],
  ['show the execution plan and cost for this SQL', 'postgres__explain_query'],
  ['what columns and indexes does the orders table have', 'postgres__describe_table'],
  ['acknowlege incident', 'pagerduty__acknowledge_incident'],
  ['stop a Datadog alert from firing while we do the deploy', 'datadog__mute_monitor'],
  ['move OPS-123 to In Progress', 'jira__transition_ticket'],
  ['jql search', 'jira__run_jql'],
  ['mark one jira ticket as blocking another', 'jira__link_tickets'],
  ['download a google sheet as xlsx', 'drive__export_document'],
  ['get this email out of my inbox but keep it', 'gmail__archive_email'],
  ['mark emails as unread', 'gmail__mark_as_read'],
  ['thumbs up emoji on a slack msg', 'slack__add_reaction'],
  ['status_text status_emoji expires_at', 'slack__set_status'],
  ['turn a qualified prospect into an account and contact', 'salesforce__convert_lead'],
  ['soql', 'salesforce__run_soql'],
  ['how much money is avaliable in our stripe acount', 'stripe__get_balance'],
  ['make a checkout URL customers can pay at', 'stripe__create_payment_link'],
  ['add a heading and a checklist to a notion page', 'notion__append_blocks'],
  ['filter and sort the rows of a Notion database', 'notion__query_database'],
  ['cpu usage time series for host web-1 over the last hour', 'datadog__query_metrics'],
  ['show error logs from the api service in the last 15 minutes', 'datadog__search_logs'],
  ['read README.md from a repo at a given commit', 'github__get_file_contents'],
  ['ask alice and bob to look over my pull request', 'github__request_review'],
  ["decline tomorrow's meeting invite", 'calendar__respond_to_invitation'],
  ['delete rows from the sessions table with SQL', 'postgres__execute_statement'],
  ['trigger a pagerduty incident: checkout is down', 'pagerduty__create_incident'],
];
