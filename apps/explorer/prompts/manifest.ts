// A prompt commit's manifest (a LangChain serialized object, as the clients push one) read for
// people and written back: a chat prompt's messages (role and template), a string prompt's
// template, the model it was pushed with (a RunnableSequence of prompt and model), the variables
// its templates name (f-string `{name}`, mustache and jinja2 `{{name}}`), as highlighted parts;
// and a manifest rebuilt from edited messages, keeping what the page does not edit (the model,
// the prompt's other fields, each unchanged message as it was). Pure: the pages and the unit tests
// (test/apps/explorer/prompts/) use it.

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const idOf = (v: unknown): string[] => (isObject(v) && Array.isArray(v.id) ? v.id.map(String) : []);
const classOf = (v: unknown): string => idOf(v).at(-1) ?? '';
const kwargsOf = (v: unknown): Json => (isObject(v) && isObject(v.kwargs) ? v.kwargs : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export type TemplateFormat = 'f-string' | 'mustache' | 'jinja2';
const formatOf = (v: unknown): TemplateFormat => (v === 'mustache' || v === 'jinja2' ? v : 'f-string');

/** The roles the editor offers; a chat message's own role (ChatMessagePromptTemplate) is kept as it is. */
export const ROLES = ['system', 'human', 'ai', 'placeholder'] as const;

const TEMPLATE_CLASS: Record<string, string> = {
  system: 'SystemMessagePromptTemplate',
  human: 'HumanMessagePromptTemplate',
  ai: 'AIMessagePromptTemplate',
};
const ROLE_OF_CLASS: Record<string, string> = {
  SystemMessagePromptTemplate: 'system',
  HumanMessagePromptTemplate: 'human',
  AIMessagePromptTemplate: 'ai',
  SystemMessage: 'system',
  HumanMessage: 'human',
  AIMessage: 'ai',
};

export interface PromptMessage {
  /** system, human, ai, a ChatMessagePromptTemplate's own role, or placeholder (MessagesPlaceholder). */
  role: string;
  /** The template; a placeholder's variable name; a literal message's text. */
  template: string;
  format: TemplateFormat;
  /** A message without a template (a SystemMessage, …): its braces are text, not variables. */
  literal: boolean;
  /** A template of several parts (text and images, as Python pushes them): read here, edited by the clients. */
  multipart: boolean;
  /** A placeholder the prompt may be formatted without. */
  optional: boolean;
  /** The serialized message, as committed. */
  source: Json | null;
}

export interface ModelConfig {
  /** The model's class, e.g. ChatOpenAI. */
  name: string;
  /** Its settings as the manifest holds them (a secret by the name it is read from). */
  params: Array<[string, string]>;
}

export type PromptView =
  | {
      kind: 'chat';
      messages: PromptMessage[];
      variables: string[];
      /** A structured prompt's output schema. */
      schema: unknown;
      model: ModelConfig | null;
    }
  | { kind: 'string'; template: string; format: TemplateFormat; variables: string[]; model: ModelConfig | null }
  /** Anything else (a runnable the page does not know): shown as JSON. */
  | { kind: 'other'; type: string; model: ModelConfig | null };

/** A template as text and variables, in order: the variables as written (`{name}`), with their names. */
export type TemplatePart = { text: string; variable: string | null };

// f-string: `{{` and `}}` are braces; `{name}`, `{name!r}`, `{name:>10}`, `{obj.attr}` name `name` (or obj).
const F_STRING = /\{\{|\}\}|\{([^{}]*)\}/g;
// mustache and jinja2: `{{name}}`, `{{{name}}}`, `{{#section}}`, `{{ name | filter }}`, …
const DOUBLE = /\{\{\{?\s*([#^/&>!]?)\s*([^{}]*?)\s*\}?\}\}/g;

export function templateParts(template: string, format: TemplateFormat): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let last = 0;
  const pattern = format === 'f-string' ? F_STRING : DOUBLE;
  for (const m of template.matchAll(pattern)) {
    const name =
      format === 'f-string'
        ? m[1] === undefined
          ? null
          : (/^\s*([^!:.[\s]*)/.exec(m[1])?.[1] ?? '')
        : m[1] === '/' || m[1] === '!' || m[1] === '>'
          ? null
          : (/^[^\s.|(]*/.exec(m[2]!)?.[0] ?? '');
    text += template.slice(last, m.index);
    last = m.index + m[0].length;
    if (name === null || name === '') {
      text += m[0];
      continue;
    }
    if (text) parts.push({ text, variable: null });
    text = '';
    parts.push({ text: m[0], variable: name });
  }
  text += template.slice(last);
  if (text) parts.push({ text, variable: null });
  return parts;
}

/** The variables a template names, each once, in the order they first appear. */
export function templateVariables(template: string, format: TemplateFormat): string[] {
  const names = templateParts(template, format).flatMap((p) => (p.variable === null ? [] : [p.variable]));
  return [...new Set(names)];
}

/** The prompt of a manifest pushed with its model, and the model; or the manifest alone. */
function unwrap(manifest: Json): { prompt: Json; model: unknown } {
  if (classOf(manifest) !== 'RunnableSequence') return { prompt: manifest, model: null };
  const k = kwargsOf(manifest);
  return isObject(k.first) ? { prompt: k.first, model: k.last ?? null } : { prompt: manifest, model: null };
}

function modelConfig(model: unknown): ModelConfig | null {
  if (!isObject(model)) return null;
  // A model with arguments bound to it (tools, …): the model, then what is bound.
  const bound = classOf(model) === 'RunnableBinding' ? kwargsOf(model).bound : null;
  const inner = isObject(bound) ? bound : model;
  const params = Object.entries(kwargsOf(inner)).map(([k, v]): [string, string] => [k, paramText(v)]);
  if (inner !== model) {
    const extra = kwargsOf(model).kwargs;
    if (isObject(extra)) for (const [k, v] of Object.entries(extra)) params.push([k, paramText(v)]);
  }
  return { name: classOf(inner) || 'model', params };
}

function paramText(v: unknown): string {
  if (isObject(v) && v.type === 'secret') return `secret ${idOf(v).join('.')}`;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function messageOf(m: unknown): PromptMessage {
  const cls = classOf(m);
  const k = kwargsOf(m);
  const base = { format: 'f-string' as TemplateFormat, literal: false, multipart: false, optional: false };
  const source = isObject(m) ? m : null;
  if (cls === 'MessagesPlaceholder')
    return {
      ...base,
      role: 'placeholder',
      template: str(k.variable_name) ?? '',
      optional: k.optional === true,
      source,
    };
  if (cls.endsWith('MessagePromptTemplate')) {
    const role = cls === 'ChatMessagePromptTemplate' ? (str(k.role) ?? 'chat') : (ROLE_OF_CLASS[cls] ?? cls);
    if (Array.isArray(k.prompt)) {
      // Parts: their text templates, an image as [image].
      const texts = k.prompt.map(
        (p) =>
          str(kwargsOf(p).template) ??
          `[${
            classOf(p)
              .replace(/PromptTemplate$/, '')
              .toLowerCase() || 'part'
          }]`,
      );
      const format = formatOf(kwargsOf(k.prompt[0]).template_format);
      return { ...base, role, template: texts.join('\n'), format, multipart: true, source };
    }
    const p = kwargsOf(k.prompt);
    return { ...base, role, template: str(p.template) ?? '', format: formatOf(p.template_format), source };
  }
  // A message without a template (SystemMessage, …), or one as a [role, text] pair.
  if (Array.isArray(m) && m.length === 2) return { ...base, role: String(m[0]), template: String(m[1]), source: null };
  const role = cls === 'ChatMessage' ? (str(k.role) ?? 'chat') : (ROLE_OF_CLASS[cls] ?? (cls || 'message'));
  const content = typeof k.content === 'string' ? k.content : JSON.stringify(k.content ?? '');
  return { ...base, role, template: content, literal: true, source };
}

/** What a manifest holds, for people. */
export function readManifest(manifest: unknown): PromptView {
  if (!isObject(manifest)) return { kind: 'other', type: typeof manifest, model: null };
  const { prompt, model } = unwrap(manifest);
  const config = modelConfig(model);
  const cls = classOf(prompt);
  const k = kwargsOf(prompt);
  if (cls === 'PromptTemplate') {
    const template = str(k.template) ?? '';
    const format = formatOf(k.template_format);
    return { kind: 'string', template, format, variables: templateVariables(template, format), model: config };
  }
  if (Array.isArray(k.messages)) {
    const messages = k.messages.map(messageOf);
    return {
      kind: 'chat',
      messages,
      variables: messagesVariables(messages),
      schema: k.schema_ ?? null,
      model: config,
    };
  }
  return { kind: 'other', type: cls || 'unknown', model: config };
}

/** The variables of messages: their templates' and the placeholders', each once, in order. */
export function messagesVariables(
  messages: readonly Pick<PromptMessage, 'role' | 'template' | 'format' | 'literal'>[],
) {
  const names = messages.flatMap((m) =>
    m.role === 'placeholder'
      ? m.template.trim()
        ? [m.template.trim()]
        : []
      : m.literal
        ? []
        : templateVariables(m.template, m.format),
  );
  return [...new Set(names)];
}

/** A manifest as text, a line per line of its templates, for a diff of two commits. */
export function manifestText(view: PromptView, manifest: unknown): string {
  const lines: string[] = [];
  if (view.kind === 'chat')
    view.messages.forEach((m, i) => {
      if (i > 0) lines.push('');
      if (m.role === 'placeholder') lines.push(`[placeholder] {${m.template}}${m.optional ? ' (optional)' : ''}`);
      else lines.push(`[${m.role}]`, ...m.template.split('\n'));
    });
  else if (view.kind === 'string') lines.push(...view.template.split('\n'));
  else lines.push(...JSON.stringify(manifest, null, 2).split('\n'));
  if (view.kind === 'chat' && view.schema != null)
    lines.push('', '[output schema]', ...JSON.stringify(view.schema, null, 2).split('\n'));
  if (view.model) lines.push('', `[model] ${view.model.name}`, ...view.model.params.map(([k, v]) => `${k}: ${v}`));
  return lines.join('\n');
}

// ---- writing a manifest back ----

/** A message as the editor holds it. */
export interface MessageDraft {
  role: string;
  template: string;
  /** The message as committed (kept as it was when unchanged; its fields kept when changed). */
  source: Json | null;
  literal: boolean;
  multipart: boolean;
  optional: boolean;
}

export const draftOf = (m: PromptMessage): MessageDraft => ({
  role: m.role,
  template: m.template,
  source: m.source,
  literal: m.literal,
  multipart: m.multipart,
  optional: m.optional,
});

export const emptyDraft = (role: string): MessageDraft => ({
  role,
  template: '',
  source: null,
  literal: false,
  multipart: false,
  optional: false,
});

/** A new serialized object of the namespace (`langchain_core` as JS pushes, `langchain` as Python). */
const lc = (ns: string, path: string[], kwargs: Json): Json => ({
  lc: 1,
  type: 'constructor',
  id: [ns, ...path],
  kwargs,
});

function promptTemplate(ns: string, template: string, format: TemplateFormat, source: unknown): Json {
  const kwargs = {
    ...kwargsOf(source),
    input_variables: templateVariables(template, format),
    template_format: format,
    template,
  };
  return isObject(source) ? { ...source, kwargs } : lc(ns, ['prompts', 'prompt', 'PromptTemplate'], kwargs);
}

function messageManifest(ns: string, d: MessageDraft, format: TemplateFormat): Json {
  const src = d.source;
  const sameRole = src !== null && messageOf(src).role === d.role;
  if (d.role === 'placeholder') {
    const variable = d.template.trim();
    if (sameRole && src) return { ...src, kwargs: { ...kwargsOf(src), variable_name: variable } };
    return lc(ns, ['prompts', 'chat', 'MessagesPlaceholder'], { variable_name: variable });
  }
  if (sameRole && src) {
    if (d.multipart || messageOf(src).template === d.template) return src;
    if (d.literal) return { ...src, kwargs: { ...kwargsOf(src), content: d.template } };
    const prompt = kwargsOf(src).prompt;
    return {
      ...src,
      kwargs: {
        ...kwargsOf(src),
        prompt: promptTemplate(ns, d.template, formatOf(kwargsOf(prompt).template_format), prompt),
      },
    };
  }
  const cls = TEMPLATE_CLASS[d.role];
  const prompt = promptTemplate(ns, d.template, format, null);
  if (cls) return lc(ns, ['prompts', 'chat', cls], { prompt });
  return lc(ns, ['prompts', 'chat', 'ChatMessagePromptTemplate'], { role: d.role, prompt });
}

/**
 * The manifest `base` with its messages (a chat prompt) or its template (a string prompt, the
 * first draft's text) replaced by the drafts; its model and its other fields kept. Null `base`:
 * a new chat prompt (two drafts or more, or a role) or string prompt (`asString`).
 */
export function editedManifest(
  base: Json | null,
  drafts: readonly MessageDraft[],
  options: { format?: TemplateFormat; asString?: boolean } = {},
): Json {
  const { prompt, model } = base ? unwrap(base) : { prompt: null, model: null };
  const ns = idOf(prompt)[0] ?? 'langchain_core';
  const view = prompt ? readManifest(prompt) : null;
  const format =
    options.format ??
    (view?.kind === 'string'
      ? view.format
      : view?.kind === 'chat'
        ? (view.messages.find((m) => m.role !== 'placeholder' && !m.literal)?.format ?? 'f-string')
        : 'f-string');
  const partials = Object.keys(
    isObject(kwargsOf(prompt).partial_variables) ? (kwargsOf(prompt).partial_variables as Json) : {},
  );
  const free = (names: string[]) => names.filter((n) => !partials.includes(n));
  let next: Json;
  if (view?.kind === 'string' || (!prompt && options.asString)) {
    const template = drafts[0]?.template ?? '';
    next = promptTemplate(ns, template, format, prompt);
    next.kwargs = { ...kwargsOf(next), input_variables: free(templateVariables(template, format)) };
  } else {
    const messages = drafts.map((d) => messageManifest(ns, d, format));
    const kwargs = {
      ...kwargsOf(prompt),
      input_variables: free(messagesVariables(drafts.map((d) => ({ ...d, format })))),
      messages,
    };
    next = prompt ? { ...prompt, kwargs } : lc(ns, ['prompts', 'chat', 'ChatPromptTemplate'], kwargs);
  }
  if (model === null || !base) return next;
  return { ...base, kwargs: { ...kwargsOf(base), first: next } };
}
