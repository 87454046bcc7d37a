import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { Dropdown } from 'primereact/dropdown';
import { InputNumber } from 'primereact/inputnumber';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { Tree, type TreeNodeTemplateOptions } from 'primereact/tree';
import type { TreeNode } from 'primereact/treenode';
import { useTranslation } from 'react-i18next';
import {
  IVR_DESTINATION_TYPES,
  IVR_DIGITS,
  IVR_LIMITS,
  IVR_PROMPT_UPLOAD,
  LANGUAGES,
  validateIvr,
  type AppRoute,
  type IvrDestination,
  type IvrDestinationOptions,
  type IvrDestinationType,
  type IvrDetail,
  type IvrIssue,
  type IvrNode,
  type IvrSummary,
  type IvrTree,
  type OptionItem,
} from '@centralita/contracts';
import { validateIvrTree } from '@centralita/domain';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { useApi, useServices } from '../../app/ServicesContext';
import { cx } from '../../components/cx';
import { DialogFooter } from '../../components/DialogFooter';
import { formatActive, formatDateTime, formatNullable } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { LANGUAGE_NAMES } from '../../i18n/languages';
import { CheckInput, SelectInput, TextArea, TextInput } from '../fields';
import { createTelephonyApi } from '../telephony/telephony-api';
import { VoiceSettingsSection } from './VoiceSettingsSection';
import {
  emptyNode,
  issueCountByNode,
  ivrIssuesByField,
  newNodeId,
  nextFreeDigit,
  removeNode,
  serverIvrIssues,
  structureOf,
  updateNode,
  type StructureNode,
} from '../telephony/ivr-editor-logic';
import { useAdminForm } from '../useAdminForm';
import './ivr-screens.css';

const LIST = '/settings/ivrMain';
const FORM = '/settings/submitivr';
const TREE = '/settings/ivrs';

function useTelephonyApi() {
  const { client } = useServices();
  return useMemo(() => createTelephonyApi(client), [client]);
}

/** /settings/ivrMain: the IVR main list. */
export function IvrListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <>
      <AdminListPage<IvrSummary>
        route={route}
        resource="ivrs"
        auditType="ivr"
        addPath={FORM}
        editPath={FORM}
        describe={(row) => row.name}
        deleteKey="telephony.ivrs.confirmDelete"
        columns={[
          { field: 'name', header: t('telephony.ivrs.name'), sortable: true, body: (row) => <strong>{row.name}</strong> },
          {
            field: 'description',
            header: t('telephony.ivrs.description'),
            body: (row) => <span className="admin-clamp">{formatNullable(row.description, t)}</span>,
          },
          { field: 'nodeCount', header: t('telephony.ivrs.nodes'), style: { width: '7rem' } },
          {
            field: 'publishedVersion',
            header: t('telephony.ivrs.version'),
            sortable: true,
            style: { width: '13rem' },
            body: (row) => (
              <span className="chip-list">
                {row.publishedVersion > 0 ? (
                  <span className="chip chip--primary" data-testid="ivr-version">
                    {t('telephony.ivrs.versionN', { version: row.publishedVersion })}
                  </span>
                ) : (
                  <span className="chip chip--muted" data-testid="ivr-version">
                    {t('telephony.ivrs.notPublished')}
                  </span>
                )}
                {row.publishedVersion > 0 && row.hasUnpublishedChanges && <span className="chip">{t('telephony.ivrs.pending')}</span>}
                {row.publishedVersion > 0 && row.promptsRendered === false && (
                  <span
                    className="chip chip--warning"
                    title={t('telephony.prompts.notRenderedHint')}
                    data-testid="ivr-prompts-not-rendered"
                  >
                    {t('telephony.prompts.notRenderedShort')}
                  </span>
                )}
              </span>
            ),
          },
          {
            field: 'active',
            header: t('telephony.ivrs.active'),
            sortable: true,
            style: { width: '8rem' },
            body: (row) => <span className={row.active ? 'chip chip--success' : 'chip chip--muted'}>{formatActive(row.active, t)}</span>,
          },
          {
            field: 'tree',
            header: t('telephony.ivrs.tree'),
            style: { width: '9rem' },
            body: (row) => (
              <Link className="text-link" to={`${TREE}?id=${encodeURIComponent(row.id)}`} data-testid="ivr-tree-link">
                <i className="pi pi-sitemap" aria-hidden="true" /> {t('telephony.ivrs.editTree')}
              </Link>
            ),
          },
        ]}
      />
      <VoiceSettingsSection />
    </>
  );
}

type IvrValues = { name: string; description: string; active: boolean; language: string };
const EMPTY_IVR: IvrValues = { name: '', description: '', active: true, language: '' };

/** /settings/submitivr: add (no id) or edit (?id=) an IVR's main fields. */
export function IvrFormPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const form = useAdminForm<IvrValues>(
    EMPTY_IVR,
    useCallback((v: IvrValues) => validateIvr(v), []),
  );
  const { values, set, blur, errorFor } = form;
  return (
    <AdminFormPage
      key={id ?? 'new'}
      route={route}
      resource="ivrs"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.get<IvrDetail>('ivrs', rowId);
        return { name: row.name, description: row.description ?? '', active: row.active, language: row.language };
      }}
      // No language chosen on a new IVR: the server gives it the organisation's.
      toBody={(v) => ({ ...v, description: v.description.trim() || null, language: v.language || undefined })}
    >
      <TextInput
        id="ivr-name"
        label={t('telephony.ivrs.name')}
        value={values.name}
        maxLength={IVR_LIMITS.nameMax}
        onChange={set('name')}
        onBlur={blur('name')}
        error={errorFor('name')}
      />
      <div className="admin-field admin-field--check">
        <CheckInput id="ivr-active" label={t('telephony.ivrs.activeLabel')} checked={values.active} onChange={set('active')} />
      </div>
      <SelectInput
        id="ivr-language"
        label={t('telephony.ivrs.language')}
        value={values.language}
        options={LANGUAGES.map((code) => ({ value: code, label: LANGUAGE_NAMES[code] }))}
        placeholder={t('telephony.ivrs.languageDefault')}
        onChange={set('language')}
        onBlur={blur('language')}
        error={errorFor('language')}
        hint={t('telephony.ivrs.languageHint')}
      />
      <TextArea
        id="ivr-description"
        wide
        rows={3}
        label={t('telephony.ivrs.description')}
        value={values.description}
        onChange={set('description')}
        onBlur={blur('description')}
        error={errorFor('description')}
        hint={
          id ? <Link to={`${TREE}?id=${encodeURIComponent(id)}`}>{t('telephony.ivrs.editTree')}</Link> : t('telephony.ivrs.treeAfterSave')
        }
      />
    </AdminFormPage>
  );
}

/** /settings/ivrs: the tree editor of one IVR (?id=), or a picker when none is chosen. */
export function IvrTreePage({ route }: { route: AppRoute }) {
  const [params] = useSearchParams();
  const id = params.get('id');
  return id ? <IvrTreeEditor route={route} id={id} key={id} /> : <IvrPicker route={route} />;
}

function IvrPicker({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const navigate = useNavigate();
  const [ivrs, setIvrs] = useState<IvrSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.admin
      .list<IvrSummary>('ivrs', { pageSize: 200 })
      .then((page) => setIvrs(page.items))
      .catch((e: unknown) => setError(describeError(e, t)));
  }, [api, t]);
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon="pi pi-sitemap" subtitle={t('telephony.tree.choose')} />
      <section className="card admin-list">
        {error && (
          <div className="form-error" role="alert">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{error}</span>
          </div>
        )}
        {ivrs === null && !error ? (
          <p className="muted">{t('common.loading')}</p>
        ) : ivrs && ivrs.length === 0 ? (
          <p className="muted">
            {t('telephony.tree.noIvrs')} <Link to={FORM}>{t('admin.list.add')}</Link>
          </p>
        ) : (
          <div className="admin-pickers">
            <Dropdown
              inputId="ivr-picker"
              value={null}
              options={(ivrs ?? []).map((i) => ({ value: i.id, label: i.name }))}
              optionLabel="label"
              optionValue="value"
              placeholder={t('telephony.tree.chooseLabel')}
              filter
              onChange={(e) => navigate(`${TREE}?id=${encodeURIComponent(e.value as string)}`)}
              data-testid="ivr-picker"
            />
          </div>
        )}
      </section>
    </>
  );
}

type Translate = ReturnType<typeof useTranslation>['t'];

function issueText(issue: IvrIssue | undefined, t: Translate): string | null {
  if (!issue) return null;
  const values = { ...issue.values };
  if (issue.key === 'notFound' && typeof values.type === 'string') values.type = t(`telephony.destination.${values.type}`);
  if (issue.key === 'required' && issue.field.endsWith('.targetId')) return t('telephony.issues.targetRequired');
  return t(`telephony.issues.${issue.key}`, values);
}

function IvrTreeEditor({ route, id }: { route: AppRoute; id: string }) {
  const { t } = useTranslation();
  const telephony = useTelephonyApi();
  const toast = useToast();
  const navigate = useNavigate();
  const [ivr, setIvr] = useState<IvrDetail | null>(null);
  const [tree, setTree] = useState<IvrTree | null>(null);
  const [options, setOptions] = useState<IvrDestinationOptions>({ attentionLines: [], agents: [], ivrs: [] });
  const [selected, setSelected] = useState<string>('');
  const [loadError, setLoadError] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempted, setAttempted] = useState(false);
  const [serverIssues, setServerIssues] = useState<IvrIssue[]>([]);
  const [busy, setBusy] = useState<'save' | 'apply' | 'copy' | null>(null);
  const [copyName, setCopyName] = useState<string | null>(null);
  const [copyError, setCopyError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    Promise.all([telephony.ivr(id), telephony.destinationOptions()])
      .then(([detail, opts]) => {
        if (!live) return;
        setIvr(detail);
        setTree(detail.draftTree);
        setSelected(detail.draftTree.rootNodeId);
        setOptions(opts);
      })
      .catch((e: unknown) => live && setLoadError(describeError(e, t)));
    return () => {
      live = false;
    };
  }, [telephony, id, t]);

  // Unsaved edits: the browser asks before the tab is closed or reloaded.
  const dirty = !!ivr && !!tree && JSON.stringify(tree) !== JSON.stringify(ivr.draftTree);
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const localIssues = useMemo(() => (tree ? validateIvrTree(tree, { ivrId: id }) : []), [tree, id]);
  const issues = useMemo(() => [...serverIssues, ...(attempted ? localIssues : [])], [serverIssues, attempted, localIssues]);
  const byField = useMemo(() => ivrIssuesByField(issues), [issues]);
  const perNode = useMemo(() => issueCountByNode(issues), [issues]);

  const edit = (change: (tree: IvrTree) => IvrTree) => {
    setTree((current) => (current ? change(current) : current));
    setServerIssues([]);
  };

  const run = async (kind: 'save' | 'apply') => {
    if (!tree || busy) return;
    setAttempted(true);
    setFailure(null);
    if (localIssues.length) {
      setFailure(t('telephony.tree.fixIssues', { count: localIssues.length }));
      focusFirst(localIssues);
      return;
    }
    setBusy(kind);
    try {
      let detail = await telephony.saveTree(id, tree);
      if (kind === 'apply') detail = await telephony.apply(id);
      setIvr(detail);
      setTree(detail.draftTree);
      setServerIssues([]);
      setAttempted(false);
      toast.success(kind === 'apply' ? t('telephony.tree.applied', { version: detail.publishedVersion }) : t('telephony.tree.saved'));
      if (kind === 'apply' && detail.promptsRendered === false) toast.warn(t('telephony.prompts.notRendered'));
    } catch (e) {
      const list = isApiError(e) && e.code === 'validation' ? serverIvrIssues(e.data) : [];
      setServerIssues(list);
      focusFirst(list);
      setFailure(list.length ? t('telephony.tree.fixIssues', { count: list.length }) : describeError(e, t));
    } finally {
      setBusy(null);
    }
  };

  const focusFirst = (list: IvrIssue[]) => {
    const match = list.map((i) => /^tree\.nodes\.(\d+)/.exec(i.field)).find(Boolean);
    if (match && tree) setSelected(tree.nodes[Number(match[1])]?.id ?? selected);
  };

  const copy = async () => {
    if (copyName === null || busy) return;
    if (!copyName.trim()) {
      setCopyError(t('validation.required'));
      return;
    }
    setBusy('copy');
    try {
      const created = await telephony.copy(id, copyName.trim());
      setCopyName(null);
      toast.success(t('telephony.tree.copied'));
      navigate(`${TREE}?id=${encodeURIComponent(created.id)}`);
    } catch (e) {
      setCopyError(describeError(e, t));
    } finally {
      setBusy(null);
    }
  };

  if (loadError) {
    return (
      <>
        <PageHeader title={t(`routes.${route.titleKey}`)} icon="pi pi-sitemap" />
        <section className="card">
          <div className="form-error" role="alert" data-testid="ivr-load-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{loadError}</span>
          </div>
          <Link to={LIST}>{t('telephony.tree.back')}</Link>
        </section>
      </>
    );
  }
  if (!ivr || !tree) {
    return (
      <>
        <PageHeader title={t(`routes.${route.titleKey}`)} icon="pi pi-sitemap" />
        <section className="card">
          <p className="muted">{t('common.loading')}</p>
        </section>
      </>
    );
  }

  const nodeIndex = Math.max(
    0,
    tree.nodes.findIndex((n) => n.id === selected),
  );
  const node = tree.nodes[nodeIndex];
  // The published tree carries the rendered prompts' audio: the server says whether the saved draft
  // differs from what was published, and local edits not yet saved are a change too.
  const pending = dirty || ivr.hasUnpublishedChanges;
  const structure = structureOf(tree);
  const toTreeNodes = (list: StructureNode[]): TreeNode[] =>
    list.map((s) => ({ key: s.key, label: s.label, data: s.nodeId, children: toTreeNodes(s.children) }));
  const treeNodes = toTreeNodes(structure);
  const allKeys = Object.fromEntries(tree.nodes.map((n) => [n.id, true]));

  const addSubNode = () => {
    const newId = newNodeId(tree);
    const digit = nextFreeDigit(node);
    edit((current) => {
      const withOption = updateNode(current, node.id, (n) => ({
        ...n,
        options: [...n.options, { digit, label: null, destination: { type: 'node', targetId: newId } }],
      }));
      return {
        ...withOption,
        nodes: [...withOption.nodes, emptyNode(newId, t('telephony.tree.newNode', { n: current.nodes.length + 1 }))],
      };
    });
    setSelected(newId);
  };

  const fieldOf = (suffix: string) => `tree.nodes.${nodeIndex}.${suffix}`;
  const err = (suffix: string) => issueText(byField[fieldOf(suffix)], t);
  const nodeErr = issueText(byField[`tree.nodes.${nodeIndex}`], t);

  return (
    <>
      <PageHeader
        title={`${t(`routes.${route.titleKey}`)} · ${ivr.name}`}
        icon="pi pi-sitemap"
        subtitle={
          <span className="chip-list" data-testid="ivr-status">
            {ivr.publishedVersion > 0 ? (
              <span className="chip chip--primary" data-testid="ivr-published-version">
                {t('telephony.tree.published', { version: ivr.publishedVersion })}
              </span>
            ) : (
              <span className="chip chip--muted" data-testid="ivr-published-version">
                {t('telephony.tree.notPublished')}
              </span>
            )}
            {ivr.publishedAt && <span className="muted">{formatDateTime(ivr.publishedAt, t)}</span>}
            <span className={cx('chip', !pending && 'chip--success')} data-testid="ivr-pending">
              {pending ? t('telephony.tree.pending') : t('telephony.tree.upToDate')}
            </span>
            {!ivr.active && <span className="chip chip--muted">{formatActive(false, t)}</span>}
            <span className="chip" data-testid="ivr-language">
              <i className="pi pi-volume-up" aria-hidden="true" /> {LANGUAGE_NAMES[ivr.language] ?? ivr.language}
            </span>
            {ivr.publishedVersion > 0 && ivr.promptsRendered === false && (
              <span className="chip chip--warning" data-testid="ivr-prompts-not-rendered" title={t('telephony.prompts.notRenderedHint')}>
                <i className="pi pi-exclamation-triangle" aria-hidden="true" /> {t('telephony.prompts.notRendered')}
              </span>
            )}
          </span>
        }
        actions={
          <div className="admin-actions">
            <Button
              icon="pi pi-copy"
              label={t('telephony.tree.copy')}
              severity="secondary"
              outlined
              onClick={() => {
                setCopyError(null);
                setCopyName(`${ivr.name} (${t('telephony.tree.copySuffix')})`);
              }}
              data-testid="ivr-copy"
            />
            <Button
              icon="pi pi-save"
              label={t('telephony.tree.save')}
              outlined
              loading={busy === 'save'}
              disabled={busy !== null}
              onClick={() => void run('save')}
              data-testid="ivr-save"
            />
            <Button
              icon="pi pi-check-circle"
              label={t('telephony.tree.apply')}
              loading={busy === 'apply'}
              disabled={busy !== null}
              onClick={() => void run('apply')}
              data-testid="ivr-apply"
            />
          </div>
        }
      />
      {failure && (
        <div className="form-error ivr-editor__failure" role="alert" data-testid="ivr-tree-error">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{failure}</span>
        </div>
      )}
      <div className="ivr-editor" data-testid="ivr-editor">
        <section className="card ivr-editor__structure">
          <h3 className="card__title">
            <i className="pi pi-sitemap" aria-hidden="true" /> {t('telephony.tree.structure')}
          </h3>
          <Tree
            value={treeNodes}
            selectionMode="single"
            selectionKeys={node.id}
            expandedKeys={allKeys}
            onSelectionChange={(e) => typeof e.value === 'string' && setSelected(e.value)}
            nodeTemplate={(item: TreeNode, _options: TreeNodeTemplateOptions) => {
              const index = tree.nodes.findIndex((n) => n.id === item.data);
              const count = perNode.get(index) ?? 0;
              return (
                <span className="ivr-structure__label" data-testid="ivr-structure-node">
                  {item.data === tree.rootNodeId && <i className="pi pi-home" aria-label={t('telephony.tree.root')} />}
                  <span>{item.label}</span>
                  {count > 0 && (
                    <span className="ivr-structure__badge" title={t('telephony.tree.nodeIssues', { count })}>
                      {count}
                    </span>
                  )}
                </span>
              );
            }}
            className="ivr-structure"
          />
          <Button icon="pi pi-plus" label={t('telephony.tree.addNode')} text onClick={addSubNode} data-testid="ivr-add-node" />
        </section>

        <section className="card ivr-editor__node" data-testid="ivr-node" data-node-id={node.id}>
          <div className="ivr-node__head">
            <h3 className="card__title">
              <i className="pi pi-comment" aria-hidden="true" /> {node.name || node.id}
              {node.id === tree.rootNodeId && <span className="chip chip--primary">{t('telephony.tree.root')}</span>}
            </h3>
            {node.id !== tree.rootNodeId && (
              <Button
                icon="pi pi-trash"
                label={t('telephony.tree.removeNode')}
                text
                severity="danger"
                onClick={() => {
                  edit((current) => removeNode(current, node.id));
                  setSelected(tree.rootNodeId);
                }}
                data-testid="ivr-remove-node"
              />
            )}
          </div>
          {nodeErr && (
            <small className="field__error" data-testid="ivr-node-error">
              {nodeErr}
            </small>
          )}
          <div className="admin-form__grid">
            <Field id="ivr-node-name" label={t('telephony.tree.nodeName')} error={err('name')}>
              <InputText
                id="ivr-node-name"
                value={node.name}
                invalid={!!err('name')}
                onChange={(e) => edit((c) => updateNode(c, node.id, (n) => ({ ...n, name: e.target.value })))}
              />
            </Field>
            <Field id="ivr-node-audio" label={t('telephony.tree.promptAudioUrl')} error={err('promptAudioUrl')}>
              <InputText
                id="ivr-node-audio"
                value={node.promptAudioUrl ?? ''}
                placeholder="https://…/welcome.wav"
                invalid={!!err('promptAudioUrl')}
                onChange={(e) => edit((c) => updateNode(c, node.id, (n) => ({ ...n, promptAudioUrl: e.target.value || null })))}
              />
            </Field>
            <Field id="ivr-node-recording" label={t('telephony.prompts.recording')} error={err('promptAudioFileId')} wide>
              <PromptRecording
                ivrId={id}
                fileId={node.promptAudioFileId ?? null}
                onChange={(fileId) => edit((c) => updateNode(c, node.id, (n) => ({ ...n, promptAudioFileId: fileId })))}
              />
            </Field>
            <Field
              id="ivr-node-prompt"
              label={t('telephony.tree.promptText')}
              error={err('promptText')}
              hint={t('telephony.tree.promptHint')}
              wide
            >
              <InputTextarea
                id="ivr-node-prompt"
                data-testid="ivr-node-prompt"
                rows={2}
                autoResize
                value={node.promptText ?? ''}
                invalid={!!err('promptText')}
                onChange={(e) => edit((c) => updateNode(c, node.id, (n) => ({ ...n, promptText: e.target.value || null })))}
              />
            </Field>
            <Field id="ivr-node-timeout" label={t('telephony.tree.timeoutSeconds')} error={err('timeoutSeconds')}>
              <InputNumber
                inputId="ivr-node-timeout"
                value={node.timeoutSeconds}
                min={0}
                useGrouping={false}
                invalid={!!err('timeoutSeconds')}
                onValueChange={(e) => edit((c) => updateNode(c, node.id, (n) => ({ ...n, timeoutSeconds: e.value ?? 0 })))}
              />
            </Field>
            <Field id="ivr-node-retries" label={t('telephony.tree.maxRetries')} error={err('maxRetries')}>
              <InputNumber
                inputId="ivr-node-retries"
                value={node.maxRetries}
                min={0}
                useGrouping={false}
                invalid={!!err('maxRetries')}
                onValueChange={(e) => edit((c) => updateNode(c, node.id, (n) => ({ ...n, maxRetries: e.value ?? 0 })))}
              />
            </Field>
            <Field
              id="ivr-node-fallback"
              label={t('telephony.tree.fallback')}
              error={err('fallback.type') ?? err('fallback.targetId')}
              wide
            >
              <DestinationPicker
                id="ivr-node-fallback"
                value={node.fallback}
                tree={tree}
                nodeId={node.id}
                ivrId={id}
                options={options}
                invalid={!!(err('fallback.type') ?? err('fallback.targetId'))}
                onChange={(fallback) => edit((c) => updateNode(c, node.id, (n) => ({ ...n, fallback })))}
              />
            </Field>
          </div>

          <h4 className="ivr-options__title">{t('telephony.tree.options')}</h4>
          {err('options') && (
            <small className="field__error" data-testid="ivr-options-error">
              {err('options')}
            </small>
          )}
          {node.options.length === 0 ? (
            <p className="muted">{t('telephony.tree.noOptions')}</p>
          ) : (
            <div className="ivr-options" data-testid="ivr-options">
              <div className="ivr-option ivr-option--head" aria-hidden="true">
                <span>{t('telephony.tree.digit')}</span>
                <span>{t('telephony.tree.label')}</span>
                <span>{t('telephony.tree.destination')}</span>
                <span />
              </div>
              {node.options.map((option, index) => {
                const digitErr = err(`options.${index}.digit`);
                const labelErr = err(`options.${index}.label`);
                const destErr = err(`options.${index}.destination.type`) ?? err(`options.${index}.destination.targetId`);
                const setOption = (change: Partial<typeof option>) =>
                  edit((c) =>
                    updateNode(c, node.id, (n) => ({ ...n, options: n.options.map((o, i) => (i === index ? { ...o, ...change } : o)) })),
                  );
                return (
                  <div
                    className={cx('ivr-option', (digitErr || destErr || labelErr) && 'ivr-option--invalid')}
                    key={index}
                    data-testid="ivr-option"
                  >
                    <div>
                      <Dropdown
                        inputId={`ivr-option-${index}-digit`}
                        aria-label={t('telephony.tree.digit')}
                        value={option.digit || null}
                        options={IVR_DIGITS.map((d) => ({ value: d, label: d }))}
                        optionLabel="label"
                        optionValue="value"
                        invalid={!!digitErr}
                        onChange={(e) => setOption({ digit: (e.value as string) ?? '' })}
                        className="ivr-option__digit"
                        data-testid="ivr-option-digit"
                      />
                    </div>
                    <div>
                      <InputText
                        aria-label={t('telephony.tree.label')}
                        value={option.label ?? ''}
                        placeholder={t('telephony.tree.labelPlaceholder')}
                        invalid={!!labelErr}
                        onChange={(e) => setOption({ label: e.target.value || null })}
                        data-testid="ivr-option-label"
                      />
                    </div>
                    <DestinationPicker
                      id={`ivr-option-${index}-destination`}
                      value={option.destination}
                      tree={tree}
                      nodeId={node.id}
                      ivrId={id}
                      options={options}
                      invalid={!!destErr}
                      onChange={(destination) => setOption({ destination })}
                    />
                    <Button
                      icon="pi pi-times"
                      rounded
                      text
                      severity="danger"
                      aria-label={t('telephony.tree.removeOption')}
                      tooltip={t('telephony.tree.removeOption')}
                      onClick={() =>
                        edit((c) => updateNode(c, node.id, (n) => ({ ...n, options: n.options.filter((_, i) => i !== index) })))
                      }
                      data-testid="ivr-remove-option"
                    />
                    {(digitErr || labelErr || destErr) && (
                      <small className="field__error ivr-option__error" data-testid="ivr-option-error">
                        {[digitErr, labelErr, destErr].filter(Boolean).join(' ')}
                      </small>
                    )}
                  </div>
                );
              })}
            </div>
          )}
          <Button
            icon="pi pi-plus"
            label={t('telephony.tree.addOption')}
            outlined
            size="small"
            disabled={node.options.length >= IVR_DIGITS.length}
            onClick={() =>
              edit((c) =>
                updateNode(c, node.id, (n) => ({
                  ...n,
                  options: [...n.options, { digit: nextFreeDigit(n), label: null, destination: { type: 'hangup', targetId: null } }],
                })),
              )
            }
            data-testid="ivr-add-option"
          />
        </section>
      </div>

      <Dialog
        header={t('telephony.tree.copyTitle')}
        visible={copyName !== null}
        onHide={() => setCopyName(null)}
        style={{ width: 'min(460px, 95vw)' }}
        footer={
          <DialogFooter
            cancel={{ label: t('admin.form.cancel'), onClick: () => setCopyName(null) }}
            action={{
              label: t('telephony.tree.copy'),
              icon: 'pi pi-copy',
              loading: busy === 'copy',
              onClick: () => void copy(),
              testId: 'ivr-copy-confirm',
            }}
          />
        }
      >
        <Field id="ivr-copy-name" label={t('telephony.tree.copyName')} error={copyError}>
          <InputText
            id="ivr-copy-name"
            data-testid="ivr-copy-name"
            value={copyName ?? ''}
            maxLength={IVR_LIMITS.nameMax}
            onChange={(e) => {
              setCopyName(e.target.value);
              setCopyError(null);
            }}
          />
        </Field>
      </Dialog>
    </>
  );
}

function Field(props: { id: string; label: string; error?: string | null; hint?: string; wide?: boolean; children: React.ReactNode }) {
  return (
    <div className={cx('field', 'admin-field', props.wide && 'admin-field--wide', props.error && 'field--invalid')}>
      <label htmlFor={props.id} className="field__label">
        {props.label}
      </label>
      <div className="field__control">{props.children}</div>
      <div className="field__message">
        {props.error ? (
          <small className="field__error" data-testid={`${props.id}-error`} aria-live="polite">
            {props.error}
          </small>
        ) : (
          props.hint && <small className="field__hint">{props.hint}</small>
        )}
      </div>
    </div>
  );
}

/**
 * A node's recorded prompt: upload (wav, mp3, ogg; the server converts it), listen, remove. The
 * recording is played instead of the text; the draft names it until the tree is saved.
 */
function PromptRecording(props: { ivrId: string; fileId: string | null; onChange(fileId: string | null): void }) {
  const { t } = useTranslation();
  const telephony = useTelephonyApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [audioUrl, setAudioUrl] = useState<string | null>(null);
  useEffect(() => {
    setAudioUrl(null);
    setError(null);
  }, [props.fileId]);
  useEffect(() => () => void (audioUrl && URL.revokeObjectURL(audioUrl)), [audioUrl]);

  const upload = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    const extension = file.name.split('.').pop()?.toLowerCase() ?? '';
    if (!(IVR_PROMPT_UPLOAD.extensions as readonly string[]).includes(extension)) {
      setError(t('telephony.prompts.wrongType', { name: file.name }));
      return;
    }
    if (file.size > IVR_PROMPT_UPLOAD.maxBytes) {
      setError(t('telephony.prompts.tooLarge', { name: file.name, mb: IVR_PROMPT_UPLOAD.maxBytes / (1024 * 1024) }));
      return;
    }
    setBusy(true);
    try {
      const { fileId } = await telephony.uploadPrompt(props.ivrId, file);
      props.onChange(fileId);
    } catch (e) {
      setError(describeError(e, t));
    } finally {
      setBusy(false);
    }
  };
  const listen = async () => {
    if (!props.fileId) return;
    try {
      setAudioUrl(URL.createObjectURL(await telephony.promptAudio(props.ivrId, props.fileId)));
    } catch (e) {
      setError(describeError(e, t));
    }
  };

  return (
    <div className="ivr-recording" data-testid="ivr-recording">
      {props.fileId ? (
        <>
          <span className="chip chip--success" data-testid="ivr-recording-set">
            <i className="pi pi-microphone" aria-hidden="true" /> {t('telephony.prompts.recordingSet')}
          </span>
          {audioUrl ? (
            <audio controls autoPlay src={audioUrl} data-testid="ivr-recording-player" />
          ) : (
            <Button type="button" icon="pi pi-play" label={t('telephony.prompts.listen')} text onClick={() => void listen()} />
          )}
          <Button
            type="button"
            icon="pi pi-times"
            label={t('telephony.prompts.removeRecording')}
            text
            severity="danger"
            onClick={() => props.onChange(null)}
            data-testid="ivr-recording-remove"
          />
        </>
      ) : (
        <label className={cx('p-button p-button-outlined p-button-sm', busy && 'p-disabled')}>
          <i className={busy ? 'pi pi-spin pi-spinner' : 'pi pi-upload'} aria-hidden="true" />
          <span>{t('telephony.prompts.upload')}</span>
          <input
            type="file"
            className="sr-only"
            accept=".wav,.mp3,.ogg,audio/wav,audio/mpeg,audio/ogg"
            disabled={busy}
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              void upload(file);
            }}
            data-testid="ivr-recording-input"
          />
        </label>
      )}
      {error ? (
        <small className="field__error" data-testid="ivr-recording-error">
          {error}
        </small>
      ) : (
        <small className="field__hint">{t('telephony.prompts.recordingHint', { mb: IVR_PROMPT_UPLOAD.maxBytes / (1024 * 1024) })}</small>
      )}
    </div>
  );
}

/** Destination type plus, for line/agent/IVR/sub-menu, the target of the tenant (or of this tree). */
function DestinationPicker(props: {
  id: string;
  value: IvrDestination;
  tree: IvrTree;
  nodeId: string;
  ivrId: string;
  options: IvrDestinationOptions;
  invalid: boolean;
  onChange(value: IvrDestination): void;
}) {
  const { t } = useTranslation();
  const { value, tree, options } = props;
  const targets: OptionItem[] =
    value.type === 'line' || value.type === 'voicemail'
      ? options.attentionLines
      : value.type === 'agent'
        ? options.agents
        : value.type === 'ivr'
          ? options.ivrs.filter((i) => i.id !== props.ivrId)
          : value.type === 'node'
            ? tree.nodes.filter((n: IvrNode) => n.id !== props.nodeId).map((n) => ({ id: n.id, name: n.name || n.id }))
            : [];
  return (
    <div className="ivr-destination">
      <Dropdown
        inputId={`${props.id}-type`}
        aria-label={t('telephony.tree.destination')}
        value={value.type}
        options={IVR_DESTINATION_TYPES.map((type) => ({ value: type, label: t(`telephony.destination.${type}`) }))}
        optionLabel="label"
        optionValue="value"
        invalid={props.invalid && !value.targetId && value.type !== 'hangup'}
        onChange={(e) => props.onChange({ type: e.value as IvrDestinationType, targetId: null })}
        className="ivr-destination__type"
        data-testid="ivr-destination-type"
      />
      {value.type !== 'hangup' && (
        <Dropdown
          inputId={`${props.id}-target`}
          aria-label={t(`telephony.destination.${value.type}`)}
          value={value.targetId}
          options={targets.map((o) => ({ value: o.id, label: o.name }))}
          optionLabel="label"
          optionValue="value"
          placeholder={t('telephony.tree.target')}
          emptyMessage={t('telephony.tree.noTargets')}
          filter={targets.length > 8}
          invalid={props.invalid}
          onChange={(e) => props.onChange({ type: value.type, targetId: (e.value as string) ?? null })}
          className="ivr-destination__target"
          data-testid="ivr-destination-target"
        />
      )}
    </div>
  );
}
