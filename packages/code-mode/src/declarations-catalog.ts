import { type CodeRuntimeLanguage, InvalidRequestError } from '@sluice/code-runtime';
import { isReservedWord, type ToolBindingNameOptions } from '@sluice/permissions';
import { type DeclaredEntry, type DeclaredTool, declareTools, type NamespaceGuide } from './declarations-entry.js';
import { pythonDefinition, pythonDocstring, pythonMember, pythonName, pythonPreamble } from './declarations-python.js';
import { shareShapes } from './declarations-shapes.js';
import { toolContentNote, type UntypedResults } from './declarations-tool-content.js';
import { compare, typescriptDefinition, typescriptDocComment, typescriptMember } from './declarations-typescript.js';
import type { TypeNode } from './schema-model.js';

/** The namespace of the discovery functions (`sluice.searchTools`, …). No tool may use it. */
export const discoveryNamespace = 'sluice';

/**
 * A discovery function's name as a program of `language` calls it: Python's declarations name the
 * snake_case spelling (`search_tools`), the one PEP 8 and the models write; both work in a run.
 */
export function discoveryName(camel: string, language: CodeRuntimeLanguage): string {
  return language === 'python' ? camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) : camel;
}

/** The longest namespace instructions shown in the declarations, in characters; `describeNamespace` has them all. */
export const maxShownInstructions = 800;

/** One tool of a {@link DeclaredCatalog}: its entry, where it goes, and what it refers to. */
export interface CatalogEntry extends DeclaredEntry {
  readonly tool: DeclaredTool;
  readonly pinned: boolean;
  readonly priority: number;
  readonly deferred: boolean;
  /** Named types the entry's input and output refer to directly. */
  readonly references: readonly string[];
}

/** A namespace of a {@link DeclaredCatalog}, with the host's guide merged in. */
export interface CatalogNamespace {
  readonly name: string;
  readonly description: string;
  readonly instructions: string;
  /** Its entries, by name. */
  readonly entries: readonly CatalogEntry[];
}

/** Options for {@link DeclaredCatalog}. */
export interface DeclaredCatalogOptions {
  readonly language: CodeRuntimeLanguage;
  readonly naming?: ToolBindingNameOptions;
  readonly untypedResults?: UntypedResults;
  readonly namespaces?: readonly NamespaceGuide[];
}

/**
 * Tools converted once, for the declarations, the search index and `describeTool`: entries sorted
 * by path, repeated shapes named once, namespaces with their guides, and the text of each piece.
 */
export class DeclaredCatalog {
  readonly language: CodeRuntimeLanguage;
  readonly entries: readonly CatalogEntry[];
  readonly definitions: ReadonlyMap<string, TypeNode>;
  readonly namespaces: ReadonlyMap<string, CatalogNamespace>;
  readonly toolContent: boolean;
  readonly #byName = new Map<string, CatalogEntry>();
  readonly #byBareName = new Map<string, CatalogEntry | null>();
  readonly #definitionReferences = new Map<string, readonly string[]>();

  constructor(tools: readonly DeclaredTool[], options: DeclaredCatalogOptions) {
    this.language = options.language;
    const set = declareTools(tools, options.naming, options.untypedResults);
    const reserved = set.entries.find((entry) => entry.binding.namespace === discoveryNamespace);
    if (reserved !== undefined) {
      throw new InvalidRequestError({
        message: `Tool ${JSON.stringify(reserved.toolName)} maps to the namespace "${discoveryNamespace}", which is reserved for tool discovery; rename it.`,
        field: 'tools',
      });
    }
    const shared = shareShapes(set.entries, set.definitions, set.names, options.language);
    this.definitions = shared.definitions;
    this.toolContent = set.toolContent;
    for (const [name, body] of shared.definitions) this.#definitionReferences.set(name, referencesOf(body));
    const guides = new Map((options.namespaces ?? []).map((guide) => [guide.name, guide]));
    const byToolName = new Map(tools.map((tool) => [tool.name, tool]));
    this.entries = shared.entries.map((entry): CatalogEntry => {
      const tool = byToolName.get(entry.toolName)!;
      const guide = guides.get(entry.binding.namespace);
      return {
        ...entry,
        tool,
        pinned: tool.pinned ?? guide?.pinned ?? false,
        priority: finite(tool.priority) ?? finite(guide?.priority) ?? 0,
        deferred: tool.deferred ?? guide?.deferred ?? false,
        references: [...new Set([...referencesOf(entry.input), ...referencesOf(entry.output)])],
      };
    });
    const namespaces = new Map<string, CatalogEntry[]>();
    for (const entry of this.entries) {
      const members = namespaces.get(entry.binding.namespace) ?? [];
      members.push(entry);
      namespaces.set(entry.binding.namespace, members);
      this.#byName.set(entry.path, entry);
      this.#byName.set(entry.toolName, entry);
      // The `_` name a reserved word is also bound as (`lab.class_`), unless a tool has it.
      if (isReservedWord(entry.binding.name)) {
        const alias = `${entry.path}_`;
        if (!this.#byName.has(alias)) this.#byName.set(alias, entry);
      }
      const bare = this.#byBareName.get(entry.binding.name);
      this.#byBareName.set(entry.binding.name, bare === undefined ? entry : null);
    }
    this.namespaces = new Map(
      [...namespaces].map(([name, entries]) => {
        const guide = guides.get(name);
        return [
          name,
          {
            name,
            description: (guide?.description ?? '').trim(),
            instructions: (guide?.instructions ?? '').trim(),
            entries: entries.sort((a, b) => compare(a.binding.name, b.binding.name)),
          },
        ];
      }),
    );
  }

  /** A tool by `namespace.name`, by its own name, or by a bare binding name only one tool has. */
  entry(name: string): CatalogEntry | undefined {
    return this.#byName.get(name) ?? this.#byBareName.get(name) ?? undefined;
  }

  /** Every named type `roots` need, themselves and what they refer to, sorted so each comes after what it uses. */
  definitionClosure(roots: Iterable<string>): string[] {
    const order: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    for (const root of [...roots].sort(compare)) {
      const stack: [string, number][] = [[root, 0]];
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        const [name, index] = top;
        if (index === 0) {
          if (state.has(name) || !this.definitions.has(name)) {
            stack.pop();
            continue;
          }
          state.set(name, 'open');
        }
        const children = this.#definitionReferences.get(name) ?? [];
        if (index < children.length) {
          top[1] = index + 1;
          const child = children[index]!;
          if (!state.has(child)) stack.push([child, 0]);
        } else {
          state.set(name, 'done');
          order.push(name);
          stack.pop();
        }
      }
    }
    return order;
  }

  /** Named types one definition refers to directly. */
  definitionReferences(name: string): readonly string[] {
    return this.#definitionReferences.get(name) ?? [];
  }

  /** The text of one named type. */
  definitionText(name: string): string {
    const body = this.definitions.get(name)!;
    return this.language === 'python' ? pythonDefinition(name, body) : typescriptDefinition(name, body);
  }

  /** The text of one tool inside its namespace block. */
  memberText(entry: DeclaredEntry): string {
    return this.language === 'python' ? pythonMember(entry) : typescriptMember(entry);
  }

  /** One line for a tool that is not declared in full: `// name: summary`. */
  summaryText(entry: DeclaredEntry): string {
    const python = this.language === 'python';
    return `${python ? '    #' : '  //'} ${python ? pythonName(entry.binding.name) : entry.binding.name}: ${entry.summary}\n`;
  }

  /**
   * The opening of a namespace block, with its description and, when `instructions`, its
   * instructions (cut past {@link maxShownInstructions} characters) as a comment.
   */
  namespaceOpen(name: string, instructions = true): string {
    const guide = guideLines(this.namespaces.get(name), instructions, this.language);
    if (this.language === 'python') {
      return `class ${name}:\n${guide.length === 0 ? '' : pythonDocstring(guide, '    ')}`;
    }
    return `${typescriptDocComment(guide.join('\n'), '')}declare const ${name}: {\n`;
  }

  /** The end of a namespace block; a Python class needs a statement when it declares no member (comments are none). */
  namespaceClose(name: string, noMembers: boolean, instructions = true): string {
    if (this.language === 'python') {
      return noMembers && guideLines(this.namespaces.get(name), instructions, this.language).length === 0
        ? '    ...\n'
        : '';
    }
    return '};\n';
  }

  /** The comment saying what `ToolContent` is, when an entry resolves with it. */
  get note(): string | undefined {
    return this.toolContent ? toolContentNote(this.language) : undefined;
  }

  /** Text that starts every declaration set in this language (the Python preamble), or `''`. */
  get preamble(): string {
    return this.language === 'python' ? pythonPreamble : '';
  }

  /** The full declaration of one tool: the named types it needs and its namespace block. */
  describe(entry: CatalogEntry): string {
    const parts: string[] = [];
    if (this.toolContent && entry.output.kind === 'reference' && entry.output.name === 'ToolContent') {
      parts.push(`${this.note}\n`);
    }
    for (const name of this.definitionClosure(entry.references)) parts.push(this.definitionText(name));
    parts.push(
      `${this.namespaceOpen(entry.binding.namespace)}${this.memberText(entry)}${this.namespaceClose(entry.binding.namespace, false)}`,
    );
    const note = entry.toolName === entry.path ? '' : `Tool name: ${JSON.stringify(entry.toolName)}.`;
    const text = parts.join('\n');
    return note === '' ? text : `${text}${this.language === 'python' ? '#' : '//'} ${note}\n`;
  }
}

function guideLines(
  namespace: CatalogNamespace | undefined,
  instructions: boolean,
  language: CodeRuntimeLanguage,
): string[] {
  const lines: string[] = [];
  if (namespace === undefined) return lines;
  if (namespace.description !== '') lines.push(...namespace.description.split(/\r?\n/));
  if (instructions && namespace.instructions !== '') {
    if (lines.length > 0) lines.push('');
    const characters = Array.from(namespace.instructions);
    const shown =
      characters.length <= maxShownInstructions
        ? namespace.instructions
        : `${characters.slice(0, maxShownInstructions).join('').trimEnd()}… (the rest: sluice.${discoveryName('describeNamespace', language)}(${JSON.stringify(namespace.name)}))`;
    lines.push(...shown.split(/\r?\n/).map((line) => line.trimEnd()));
  }
  return lines;
}

function referencesOf(node: TypeNode): string[] {
  const found = new Set<string>();
  const pending: TypeNode[] = [node];
  while (pending.length > 0) {
    const current = pending.pop()!;
    switch (current.kind) {
      case 'reference':
        found.add(current.name);
        break;
      case 'object':
        for (const property of current.properties) pending.push(property.type);
        if (current.additional !== undefined) pending.push(current.additional);
        break;
      case 'array':
        pending.push(current.items);
        break;
      case 'tuple':
        pending.push(...current.items);
        if (current.rest !== undefined) pending.push(current.rest);
        break;
      case 'union':
      case 'intersection':
        pending.push(...current.members);
        break;
      default:
        break;
    }
  }
  return [...found].sort(compare);
}

function finite(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
