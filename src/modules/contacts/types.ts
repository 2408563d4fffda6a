// Contacts, groups and templates as other parts see them.
export interface ContactRow {
  id: string;
  account_id: string;
  name: string;
  /** E.164; unique within the account. */
  phone: string;
  tags: string[];
  /** Custom fields, each a string. */
  fields: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

export interface GroupRow {
  id: string;
  account_id: string;
  name: string;
  created_at: Date;
}

export type GroupWithCount = GroupRow & { members: number };

export interface TemplateRow {
  id: string;
  account_id: string;
  name: string;
  text: string;
  created_at: Date;
  updated_at: Date;
}
