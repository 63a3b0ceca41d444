/**
 * Events about the platform's stored subjects (files, branches, packages) that the workflow
 * engine matches rules against. Emitted by the modules that store those subjects.
 * (Filled in by the workflow rules issue.)
 */
export interface SubjectEvents {}
