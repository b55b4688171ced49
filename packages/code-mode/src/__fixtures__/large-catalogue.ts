// Catalogues of 100 and 500 tools written for the catalogue tests: services a team connects
// (issue trackers, chat, mail, calendars, storage, databases, payments, CRM, monitoring, …), each
// with its own resources, verbs, parameters and wording. Deterministic: the same call gives the
// same tools. `catalogueQueries` are 30 requests as a user would phrase them, with the tool that
// answers each.
import type { DeclaredTool } from '../declarations-entry.js';

type Schema = Record<string, unknown>;

interface Resource {
  /** Singular, snake_case: `issue`, `pull_request`. */
  readonly name: string;
  readonly plural: string;
  /** What one is, for descriptions: "an issue in a repository". */
  readonly what: string;
  readonly fields: Readonly<Record<string, Schema>>;
  /** Parameters that locate the resource's parent (`owner`, `repo`). */
  readonly scope?: Readonly<Record<string, Schema>>;
}

interface Service {
  readonly name: string;
  readonly title: string;
  readonly resources: readonly Resource[];
  /** Tools beyond the usual verbs: name, description, input properties, required. */
  readonly extra: readonly [string, string, Readonly<Record<string, Schema>>, readonly string[]][];
}

const text = (description: string): Schema => ({ type: 'string', description });
const id = (what: string): Schema => ({ type: 'string', description: `The ${what} id.` });
const time: Schema = { type: 'string', format: 'date-time' };
const money: Schema = { type: 'object', properties: { amount: { type: 'integer', description: 'In the smallest currency unit.' }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } }, required: ['amount', 'currency'] };
const person: Schema = { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string', format: 'email' } }, required: ['id', 'name'] };
const repoScope = { owner: text('Account or organisation that owns the repository.'), repo: text('Repository name.') };

const services: readonly Service[] = [
  {
    name: 'github',
    title: 'GitHub',
    resources: [
      { name: 'issue', plural: 'issues', what: 'an issue in a repository', scope: repoScope, fields: { title: text('Issue title.'), body: text('Markdown body.'), state: { enum: ['open', 'closed'] }, labels: { type: 'array', items: { type: 'string' } }, assignee: person } },
      { name: 'pull_request', plural: 'pull_requests', what: 'a pull request proposing changes from a branch', scope: repoScope, fields: { title: text('Pull request title.'), head: text('Branch with the changes.'), base: text('Branch to merge into.'), draft: { type: 'boolean' }, author: person } },
      { name: 'release', plural: 'releases', what: 'a tagged release with notes', scope: repoScope, fields: { tag_name: text('Git tag.'), name: text('Release title.'), notes: text('Release notes.'), prerelease: { type: 'boolean' } } },
    ],
    extra: [
      ['merge_pull_request', 'Merge a pull request into its base branch using merge, squash or rebase.', { ...repoScope, number: { type: 'integer' }, method: { enum: ['merge', 'squash', 'rebase'] } }, ['owner', 'repo', 'number']],
      ['search_code', 'Search source code across repositories for a text or symbol.', { query: text('Code search query.'), language: text('Programming language filter.') }, ['query']],
      ['get_file_contents', 'Read the contents of a file in a repository at a branch or commit.', { ...repoScope, path: text('File path in the repository.'), ref: text('Branch, tag or commit SHA.') }, ['owner', 'repo', 'path']],
      ['list_commits', 'List commits on a branch, newest first.', { ...repoScope, branch: text('Branch name.'), since: time }, ['owner', 'repo']],
      ['request_review', 'Ask people to review a pull request.', { ...repoScope, number: { type: 'integer' }, reviewers: { type: 'array', items: { type: 'string' } } }, ['owner', 'repo', 'number', 'reviewers']],
    ],
  },
  {
    name: 'slack',
    title: 'Slack',
    resources: [
      { name: 'message', plural: 'messages', what: 'a message posted in a channel or thread', scope: { channel: text('Channel id or #name.') }, fields: { text: text('Message text (mrkdwn).'), thread_ts: text('Timestamp of the parent message, to reply in a thread.'), author: person } },
      { name: 'channel', plural: 'channels', what: 'a public or private conversation channel', fields: { name: text('Channel name without #.'), topic: text('Channel topic.'), is_private: { type: 'boolean' } } },
      { name: 'reminder', plural: 'reminders', what: 'a reminder Slackbot sends at a time', fields: { text: text('What to be reminded of.'), time: time } },
    ],
    extra: [
      ['add_reaction', 'Add an emoji reaction to a message.', { channel: text('Channel id.'), timestamp: text('Message timestamp.'), emoji: text('Emoji name without colons.') }, ['channel', 'timestamp', 'emoji']],
      ['set_status', 'Set your status text and emoji, optionally until a time.', { status_text: text('Status text.'), status_emoji: text('Emoji.'), expires_at: time }, ['status_text']],
      ['invite_to_channel', 'Invite users to a channel.', { channel: text('Channel id.'), users: { type: 'array', items: { type: 'string' } } }, ['channel', 'users']],
      ['upload_file', 'Upload a file to a channel, with an optional comment.', { channel: text('Channel id.'), filename: text('File name.'), content: text('File content as text.') }, ['channel', 'filename', 'content']],
      ['search_messages', 'Search messages across channels by words, sender and date.', { query: text('Search words; supports from:@user and in:#channel.'), sort: { enum: ['score', 'timestamp'] } }, ['query']],
    ],
  },
  {
    name: 'gmail',
    title: 'Gmail',
    resources: [
      { name: 'email', plural: 'emails', what: 'an email message in the mailbox', fields: { to: { type: 'array', items: { type: 'string', format: 'email' } }, subject: text('Subject line.'), body: text('Plain-text body.'), cc: { type: 'array', items: { type: 'string' } } } },
      { name: 'draft', plural: 'drafts', what: 'an unsent draft email', fields: { to: { type: 'array', items: { type: 'string' } }, subject: text('Subject line.'), body: text('Body.') } },
      { name: 'label', plural: 'labels', what: 'a label that organises emails', fields: { name: text('Label name.'), color: text('Background colour as hex.') } },
    ],
    extra: [
      ['send_email', 'Send an email now to one or more recipients, with optional attachments.', { to: { type: 'array', items: { type: 'string', format: 'email' } }, subject: text('Subject.'), body: text('Body text.'), attachments: { type: 'array', items: { type: 'object', properties: { filename: { type: 'string' }, content_base64: { type: 'string' } } } } }, ['to', 'subject', 'body']],
      ['reply_to_email', 'Reply to an email in its thread.', { email_id: id('email'), body: text('Reply text.'), reply_all: { type: 'boolean' } }, ['email_id', 'body']],
      ['archive_email', 'Archive an email: remove it from the inbox without deleting it.', { email_id: id('email') }, ['email_id']],
      ['mark_as_read', 'Mark emails as read or unread.', { email_ids: { type: 'array', items: { type: 'string' } }, read: { type: 'boolean' } }, ['email_ids']],
      ['search_emails', 'Search the mailbox with Gmail query syntax (from:, subject:, has:attachment, newer_than:).', { query: text('Gmail search query.'), max_results: { type: 'integer', maximum: 100 } }, ['query']],
    ],
  },
  {
    name: 'calendar',
    title: 'Google Calendar',
    resources: [
      { name: 'event', plural: 'events', what: 'a calendar event with attendees', scope: { calendar_id: text('Calendar id; "primary" for your own.') }, fields: { summary: text('Event title.'), start: time, end: time, attendees: { type: 'array', items: { type: 'string', format: 'email' } }, location: text('Where it takes place.') } },
      { name: 'calendar', plural: 'calendars', what: 'a calendar you own or subscribe to', fields: { summary: text('Calendar name.'), time_zone: text('IANA time zone.') } },
    ],
    extra: [
      ['find_free_time', 'Find time slots when all the given people are free.', { attendees: { type: 'array', items: { type: 'string', format: 'email' } }, duration_minutes: { type: 'integer' }, window_start: time, window_end: time }, ['attendees', 'duration_minutes']],
      ['respond_to_invitation', 'Accept, decline or tentatively accept a meeting invitation.', { event_id: id('event'), response: { enum: ['accepted', 'declined', 'tentative'] } }, ['event_id', 'response']],
      ['quick_add_event', 'Create an event from a sentence such as "Lunch with Ana tomorrow at noon".', { text: text('The event in plain words.') }, ['text']],
    ],
  },
  {
    name: 'drive',
    title: 'Google Drive',
    resources: [
      { name: 'file', plural: 'files', what: 'a file stored in Drive', fields: { name: text('File name.'), mime_type: text('MIME type.'), parent_folder_id: id('folder'), size_bytes: { type: 'integer' } } },
      { name: 'folder', plural: 'folders', what: 'a folder that holds files', fields: { name: text('Folder name.'), parent_folder_id: id('parent folder') } },
      { name: 'permission', plural: 'permissions', what: 'who can view or edit a file', scope: { file_id: id('file') }, fields: { email: { type: 'string', format: 'email' }, role: { enum: ['reader', 'commenter', 'writer', 'owner'] } } },
    ],
    extra: [
      ['share_file', 'Share a file or folder with people by email, as viewer, commenter or editor.', { file_id: id('file'), emails: { type: 'array', items: { type: 'string', format: 'email' } }, role: { enum: ['reader', 'commenter', 'writer'] } }, ['file_id', 'emails', 'role']],
      ['export_document', 'Export a Google Doc, Sheet or Slides file as PDF, DOCX, XLSX or CSV.', { file_id: id('file'), format: { enum: ['pdf', 'docx', 'xlsx', 'csv'] } }, ['file_id', 'format']],
      ['move_file', 'Move a file into another folder.', { file_id: id('file'), folder_id: id('destination folder') }, ['file_id', 'folder_id']],
    ],
  },
  {
    name: 'jira',
    title: 'Jira',
    resources: [
      { name: 'ticket', plural: 'tickets', what: 'a Jira issue (story, bug or task) in a project', scope: { project_key: text('Project key, such as OPS.') }, fields: { summary: text('One-line summary.'), description: text('Details.'), issue_type: { enum: ['Story', 'Bug', 'Task', 'Epic'] }, priority: { enum: ['Highest', 'High', 'Medium', 'Low'] }, assignee: person } },
      { name: 'sprint', plural: 'sprints', what: 'a time-boxed sprint on a board', scope: { board_id: { type: 'integer' } }, fields: { name: text('Sprint name.'), goal: text('Sprint goal.'), start_date: time, end_date: time } },
      { name: 'worklog', plural: 'worklogs', what: 'time logged against a ticket', scope: { ticket_key: text('Ticket key, such as OPS-12.') }, fields: { time_spent: text('Like "3h 20m".'), comment: text('What was done.') } },
    ],
    extra: [
      ['transition_ticket', 'Move a ticket to another workflow status, such as In Progress or Done.', { ticket_key: text('Ticket key.'), status: text('Target status name.') }, ['ticket_key', 'status']],
      ['run_jql', 'Search tickets with a JQL query.', { jql: text('JQL, such as project = OPS AND status = "In Progress".'), max_results: { type: 'integer' } }, ['jql']],
      ['link_tickets', 'Link two tickets: blocks, relates to, duplicates.', { from_key: text('Ticket key.'), to_key: text('Ticket key.'), link_type: { enum: ['blocks', 'relates', 'duplicates'] } }, ['from_key', 'to_key', 'link_type']],
    ],
  },
  {
    name: 'postgres',
    title: 'PostgreSQL',
    resources: [],
    extra: [
      ['run_query', 'Run a read-only SQL query and return the rows.', { sql: text('A SELECT statement.'), params: { type: 'array', items: {} }, timeout_ms: { type: 'integer' } }, ['sql']],
      ['execute_statement', 'Execute a SQL statement that changes data (INSERT, UPDATE, DELETE) in a transaction.', { sql: text('The statement.'), params: { type: 'array', items: {} } }, ['sql']],
      ['list_tables', 'List the tables in a schema with their row estimates.', { schema: text('Schema name; public by default.') }, []],
      ['describe_table', 'Show the columns, types, indexes and constraints of a table.', { table: text('Table name, optionally schema-qualified.') }, ['table']],
      ['explain_query', 'Show the query plan PostgreSQL would use for a query, with costs.', { sql: text('The query.'), analyze: { type: 'boolean' } }, ['sql']],
      ['list_slow_queries', 'List the slowest queries recorded by pg_stat_statements.', { limit: { type: 'integer' } }, []],
      ['list_schemas', 'List the schemas of the database with their owners.', {}, []],
    ],
  },
  {
    name: 'stripe',
    title: 'Stripe',
    resources: [
      { name: 'customer', plural: 'customers', what: 'a paying customer', fields: { email: { type: 'string', format: 'email' }, name: text('Full name.'), metadata: { type: 'object', additionalProperties: { type: 'string' } } } },
      { name: 'invoice', plural: 'invoices', what: 'an invoice billed to a customer', fields: { customer_id: id('customer'), total: money, status: { enum: ['draft', 'open', 'paid', 'void'] }, due_date: time } },
      { name: 'subscription', plural: 'subscriptions', what: 'a recurring subscription to a price', fields: { customer_id: id('customer'), price_id: id('price'), status: { enum: ['active', 'past_due', 'canceled', 'trialing'] } } },
    ],
    extra: [
      ['refund_payment', 'Refund a payment in full or in part.', { payment_intent_id: id('payment intent'), amount: { type: 'integer', description: 'Leave out for a full refund.' }, reason: { enum: ['duplicate', 'fraudulent', 'requested_by_customer'] } }, ['payment_intent_id']],
      ['create_payment_link', 'Create a shareable link where customers pay for a price.', { price_id: id('price'), quantity: { type: 'integer' } }, ['price_id']],
      ['get_balance', 'Get the account balance, available and pending, per currency.', {}, []],
    ],
  },
  {
    name: 'notion',
    title: 'Notion',
    resources: [
      { name: 'page', plural: 'pages', what: 'a Notion page with blocks of content', fields: { title: text('Page title.'), parent_id: id('parent page or database'), icon: text('Emoji icon.') } },
      { name: 'database', plural: 'databases', what: 'a Notion database of pages with properties', fields: { title: text('Database title.'), properties: { type: 'object', additionalProperties: { type: 'object' } } } },
    ],
    extra: [
      ['query_database', 'Query a Notion database with filters and sorts.', { database_id: id('database'), filter: { type: 'object' }, sorts: { type: 'array', items: { type: 'object', properties: { property: { type: 'string' }, direction: { enum: ['ascending', 'descending'] } } } } }, ['database_id']],
      ['append_blocks', 'Append paragraphs, headings, to-dos or code blocks to a page.', { page_id: id('page'), blocks: { type: 'array', items: { type: 'object', properties: { type: { enum: ['paragraph', 'heading', 'to_do', 'code'] }, text: { type: 'string' } } } } }, ['page_id', 'blocks']],
      ['search_workspace', 'Search page and database titles across the workspace.', { query: text('Words in the title.') }, ['query']],
    ],
  },
  {
    name: 'salesforce',
    title: 'Salesforce',
    resources: [
      { name: 'lead', plural: 'leads', what: 'a prospective customer not yet qualified', fields: { first_name: text('First name.'), last_name: text('Last name.'), company: text('Company.'), email: { type: 'string', format: 'email' }, status: { enum: ['New', 'Working', 'Qualified', 'Unqualified'] } } },
      { name: 'opportunity', plural: 'opportunities', what: 'a potential deal with an account', fields: { name: text('Deal name.'), account_id: id('account'), stage: { enum: ['Prospecting', 'Proposal', 'Negotiation', 'Closed Won', 'Closed Lost'] }, amount: { type: 'number' }, close_date: time } },
      { name: 'account', plural: 'accounts', what: 'a company you do business with', fields: { name: text('Account name.'), industry: text('Industry.'), owner: person } },
    ],
    extra: [
      ['convert_lead', 'Convert a qualified lead into an account, a contact and optionally an opportunity.', { lead_id: id('lead'), create_opportunity: { type: 'boolean' } }, ['lead_id']],
      ['run_soql', 'Run a SOQL query against Salesforce objects.', { soql: text('SOQL query.') }, ['soql']],
    ],
  },
  {
    name: 'pagerduty',
    title: 'PagerDuty',
    resources: [
      { name: 'incident', plural: 'incidents', what: 'an incident that pages the on-call responder', fields: { title: text('What is wrong.'), service_id: id('service'), urgency: { enum: ['high', 'low'] }, status: { enum: ['triggered', 'acknowledged', 'resolved'] } } },
      { name: 'schedule', plural: 'schedules', what: 'an on-call rotation schedule', fields: { name: text('Schedule name.'), time_zone: text('IANA time zone.') } },
    ],
    extra: [
      ['acknowledge_incident', 'Acknowledge an incident so it stops escalating.', { incident_id: id('incident') }, ['incident_id']],
      ['resolve_incident', 'Resolve an incident once the problem is fixed.', { incident_id: id('incident'), resolution: text('What fixed it.') }, ['incident_id']],
      ['who_is_on_call', 'Who is on call now (or at a time) for a schedule or escalation policy.', { schedule_id: id('schedule'), at: time }, []],
    ],
  },
  {
    name: 'datadog',
    title: 'Datadog',
    resources: [
      { name: 'monitor', plural: 'monitors', what: 'an alerting monitor on a metric or log query', fields: { name: text('Monitor name.'), query: text('Monitor query.'), thresholds: { type: 'object', properties: { critical: { type: 'number' }, warning: { type: 'number' } } }, message: text('Notification message.') } },
      { name: 'dashboard', plural: 'dashboards', what: 'a dashboard of graphs', fields: { title: text('Dashboard title.'), widgets: { type: 'array', items: { type: 'object' } } } },
    ],
    extra: [
      ['query_metrics', 'Query time series of a metric over a time range, such as avg:system.cpu.user{host:web-1}.', { query: text('Metric query.'), from: time, to: time }, ['query', 'from', 'to']],
      ['search_logs', 'Search logs by query, service and status over a time range.', { query: text('Log query, such as service:api status:error.'), from: time, to: time, limit: { type: 'integer' } }, ['query']],
      ['mute_monitor', 'Mute a monitor until a time, to silence its alerts during maintenance.', { monitor_id: { type: 'integer' }, until: time }, ['monitor_id']],
    ],
  },
];

// Services added for the 500-tool catalogue: same shape, other domains.
const moreServices: readonly [string, string, readonly [string, string, string][]][] = [
  ['hubspot', 'HubSpot', [['contact', 'contacts', 'a person in the CRM'], ['deal', 'deals', 'a sales deal in a pipeline'], ['company', 'companies', 'a company record'], ['ticket', 'tickets', 'a customer support ticket']]],
  ['zendesk', 'Zendesk', [['support_ticket', 'support_tickets', 'a customer support request'], ['macro', 'macros', 'a canned response applied to tickets'], ['agent', 'agents', 'a support agent'], ['satisfaction_rating', 'satisfaction_ratings', 'a customer satisfaction survey answer']]],
  ['shopify', 'Shopify', [['product', 'products', 'a product in the store catalogue'], ['order', 'orders', 'a customer order'], ['inventory_level', 'inventory_levels', 'stock of a product variant at a location'], ['discount_code', 'discount_codes', 'a code that discounts an order']]],
  ['aws', 'AWS', [['ec2_instance', 'ec2_instances', 'a virtual machine in EC2'], ['s3_bucket', 's3_buckets', 'an S3 storage bucket'], ['lambda_function', 'lambda_functions', 'a serverless Lambda function'], ['cloudwatch_alarm', 'cloudwatch_alarms', 'a CloudWatch alarm on a metric']]],
  ['kubernetes', 'Kubernetes', [['pod', 'pods', 'a running pod in a namespace'], ['deployment', 'deployments', 'a deployment managing replicas'], ['service', 'services', 'a service exposing pods'], ['config_map', 'config_maps', 'a ConfigMap of settings']]],
  ['sentry', 'Sentry', [['error_event', 'error_events', 'a captured exception with its stack trace'], ['release_health', 'release_healths', 'crash-free rates of a release'], ['alert_rule', 'alert_rules', 'a rule that notifies on errors'], ['project', 'projects', 'a Sentry project']]],
  ['figma', 'Figma', [['design_file', 'design_files', 'a Figma design file'], ['comment', 'comments', 'a comment pinned on a design'], ['component', 'components', 'a reusable design component'], ['frame_export', 'frame_exports', 'a frame rendered to PNG or SVG']]],
  ['twilio', 'Twilio', [['sms', 'sms_messages', 'a text message sent to a phone'], ['phone_call', 'phone_calls', 'a voice call'], ['phone_number', 'phone_numbers', 'a phone number you rent'], ['verification', 'verifications', 'a one-time passcode check']]],
  ['confluence', 'Confluence', [['wiki_page', 'wiki_pages', 'a page in a Confluence space'], ['space', 'spaces', 'a Confluence space'], ['attachment', 'attachments', 'a file attached to a page'], ['page_label', 'page_labels', 'a label on a page']]],
  ['linear', 'Linear', [['linear_issue', 'linear_issues', 'an issue in a Linear team'], ['cycle', 'cycles', 'a Linear cycle'], ['roadmap_project', 'roadmap_projects', 'a project on the roadmap'], ['team', 'teams', 'a Linear team']]],
  ['spotify', 'Spotify', [['playlist', 'playlists', 'a playlist of tracks'], ['track', 'tracks', 'a song'], ['album', 'albums', 'an album'], ['podcast_episode', 'podcast_episodes', 'an episode of a podcast']]],
  ['weather', 'Weather', [['forecast', 'forecasts', 'the weather forecast for a place'], ['air_quality', 'air_qualities', 'the air quality index at a place'], ['weather_alert', 'weather_alerts', 'a severe weather warning'], ['historical_observation', 'historical_observations', 'past weather measured at a station']]],
  ['maps', 'Maps', [['route', 'routes', 'driving, walking or transit directions between places'], ['place', 'places', 'a business or landmark'], ['geocode', 'geocodes', 'coordinates for an address'], ['travel_time', 'travel_times', 'how long a trip takes at a time of day']]],
  ['docker', 'Docker', [['container', 'containers', 'a running or stopped container'], ['image', 'images', 'a container image'], ['volume', 'volumes', 'a named data volume'], ['network', 'networks', 'a container network']]],
  ['okta', 'Okta', [['user_account', 'user_accounts', 'a person who signs in'], ['group', 'groups', 'a group of users'], ['app_assignment', 'app_assignments', 'a user given access to an application'], ['mfa_factor', 'mfa_factors', 'a second factor enrolled by a user']]],
  ['quickbooks', 'QuickBooks', [['bill', 'bills', 'a bill from a vendor'], ['expense', 'expenses', 'a business expense'], ['vendor', 'vendors', 'a supplier you pay'], ['journal_entry', 'journal_entries', 'a double-entry journal entry']]],
  ['greenhouse', 'Greenhouse', [['candidate', 'candidates', 'a job candidate'], ['job_opening', 'job_openings', 'an open position'], ['interview', 'interviews', 'a scheduled interview'], ['scorecard', 'scorecards', 'an interviewer’s feedback on a candidate']]],
  ['intercom', 'Intercom', [['conversation', 'conversations', 'a chat with a customer'], ['article', 'articles', 'a help center article'], ['customer_segment', 'customer_segments', 'a segment of customers'], ['in_app_message', 'in_app_messages', 'a message shown inside your product']]],
  ['mixpanel', 'Mixpanel', [['funnel', 'funnels', 'a conversion funnel'], ['cohort', 'cohorts', 'a cohort of users'], ['tracked_event', 'tracked_events', 'an analytics event'], ['retention_report', 'retention_reports', 'how many users come back over time']]],
];

const generatedVerbs: readonly [string, (plural: string, what: string, title: string) => string, boolean][] = [
  ['list', (plural, what, title) => `List ${plural.replaceAll('_', ' ')} in ${title}, newest first, a page at a time. Each is ${what}.`, true],
  ['get', (_plural, what, title) => `Get one ${what} from ${title} by id, with all its fields.`, false],
  ['create', (_plural, what, title) => `Create ${what} in ${title}.`, false],
  ['update', (_plural, what, title) => `Update fields of ${what} in ${title}; fields left out keep their value.`, false],
  ['delete', (_plural, what, title) => `Delete ${what} from ${title} for good.`, false],
];

function resourceTools(service: { name: string; title: string }, resource: Resource): DeclaredTool[] {
  const scope = resource.scope ?? {};
  const shape: Schema = { type: 'object', properties: { id: { type: 'string' }, ...resource.fields, created_at: time }, required: ['id'] };
  const page = { cursor: { type: ['string', 'null'], description: 'Cursor from the previous page.' }, limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 } };
  const idKey = `${resource.name}_id`;
  const tools: DeclaredTool[] = [];
  for (const [verb, describe] of generatedVerbs) {
    const name = verb === 'list' ? `list_${resource.plural}` : `${verb}_${resource.name}`;
    const description = describe(resource.plural, resource.what, service.title);
    let input: Schema;
    let output: Schema;
    if (verb === 'list') {
      input = { type: 'object', properties: { ...scope, ...page }, required: Object.keys(scope) };
      output = { type: 'object', properties: { items: { type: 'array', items: shape }, next_cursor: { type: ['string', 'null'] } }, required: ['items'] };
    } else if (verb === 'create') {
      input = { type: 'object', properties: { ...scope, ...resource.fields }, required: [...Object.keys(scope), Object.keys(resource.fields)[0]!] };
      output = shape;
    } else if (verb === 'update') {
      input = { type: 'object', properties: { ...scope, [idKey]: id(resource.name.replaceAll('_', ' ')), ...resource.fields }, required: [...Object.keys(scope), idKey] };
      output = shape;
    } else {
      input = { type: 'object', properties: { ...scope, [idKey]: id(resource.name.replaceAll('_', ' ')) }, required: [...Object.keys(scope), idKey] };
      output = verb === 'get' ? shape : { type: 'object', properties: { deleted: { type: 'boolean' } }, required: ['deleted'] };
    }
    tools.push({ name: `${service.name}__${name}`, description, inputSchema: input, outputSchema: output });
  }
  return tools;
}

function serviceTools(service: Service): DeclaredTool[] {
  const tools = service.resources.flatMap((resource) => resourceTools(service, resource));
  for (const [name, description, properties, required] of service.extra) {
    tools.push({ name: `${service.name}__${name}`, description, inputSchema: { type: 'object', properties, required } });
  }
  return tools;
}

function moreTools([name, title, resources]: (typeof moreServices)[number]): DeclaredTool[] {
  return resources.flatMap(([resource, plural, what]) =>
    resourceTools(
      { name, title },
      { name: resource, plural, what, fields: { name: text(`Name of the ${resource.replaceAll('_', ' ')}.`), notes: text('Free-form notes.'), owner: person } },
    ),
  );
}

/** The first `size` tools (100 or 500) of the catalogue, in a fixed order. */
export function largeCatalogue(size: 100 | 500): DeclaredTool[] {
  const core = services.flatMap(serviceTools);
  const all = [...core, ...moreServices.flatMap(moreTools)];
  if (size === 100) {
    // Each service's first resource and its own tools: 100 tools from all twelve services.
    const generated = new Set(services.flatMap((service) => service.resources.slice(1).flatMap((resource) => resourceTools(service, resource).map((tool) => tool.name))));
    return core.filter((tool) => !generated.has(tool.name));
  }
  return all.slice(0, 500);
}

/**
 * `size` distinct tools for build-time measurements (any size): the 500-tool catalogue, then copies
 * of it for further accounts of each service, in the service's namespace (`github__list_issues_2`)
 * or, with `namespacePerCopy`, in one of their own (`github_2__list_issues`). Each copy's
 * descriptions name its account, so its shapes differ from the other copies' while keeping their
 * names (`Person`), as they do across servers.
 */
export function scaledCatalogue(size: number, options: { readonly namespacePerCopy?: boolean } = {}): DeclaredTool[] {
  const base = largeCatalogue(500);
  const tools: DeclaredTool[] = [...base.slice(0, size)];
  for (let copy = 2; tools.length < size; copy += 1) {
    const account = (key: string, value: unknown) =>
      key === 'description' && typeof value === 'string' ? `${value} (account ${copy})` : value;
    for (const tool of base.slice(0, size - tools.length)) {
      const name = options.namespacePerCopy === true ? tool.name.replace('__', `_${copy}__`) : `${tool.name}_${copy}`;
      tools.push(JSON.parse(JSON.stringify({ ...tool, name }, account)) as DeclaredTool);
    }
  }
  return tools;
}

/** Thirty requests as a user would phrase them, and the `namespace.name` of the tool that serves each. */
export const catalogueQueries: readonly (readonly [string, string])[] = [
  ['open a bug report in the repository', 'github.create_issue'],
  ['merge the PR with squash', 'github.merge_pull_request'],
  ['read a file from the repo at a branch', 'github.get_file_contents'],
  ['ask someone to review my pull request', 'github.request_review'],
  ['post a message to a slack channel', 'slack.create_message'],
  ['react with an emoji to a message', 'slack.add_reaction'],
  ['set my status to in a meeting', 'slack.set_status'],
  ['send an email with an attachment', 'gmail.send_email'],
  ['reply to an email thread', 'gmail.reply_to_email'],
  ['find emails from my boss with attachments', 'gmail.search_emails'],
  ['when are all of us free for a meeting', 'calendar.find_free_time'],
  ['decline the meeting invitation', 'calendar.respond_to_invitation'],
  ['schedule a meeting with attendees', 'calendar.create_event'],
  ['give a colleague edit access to a document', 'drive.share_file'],
  ['download a spreadsheet as csv', 'drive.export_document'],
  ['move the ticket to done', 'jira.transition_ticket'],
  ['mark one ticket as blocking another', 'jira.link_tickets'],
  ['jql search for tickets in progress', 'jira.run_jql'],
  ['run a sql select query', 'postgres.run_query'],
  ['show the columns of a table', 'postgres.describe_table'],
  ['why is this query slow, show the plan', 'postgres.explain_query'],
  ['refund a customer payment', 'stripe.refund_payment'],
  ['make a link where customers can pay', 'stripe.create_payment_link'],
  ['add a to-do to a notion page', 'notion.append_blocks'],
  ['convert a qualified lead', 'salesforce.convert_lead'],
  ['who is on call right now', 'pagerduty.who_is_on_call'],
  ['acknowledge the incident', 'pagerduty.acknowledge_incident'],
  ['silence alerts during maintenance', 'datadog.mute_monitor'],
  ['search error logs for the api service', 'datadog.search_logs'],
  ['how much money is in my stripe account', 'stripe.get_balance'],
];
