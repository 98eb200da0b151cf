import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every domain table of docs/domain.md §2.6–2.21. Enums are constrained text; `priority_rank` sorts priorities. */
export class Domain1763790000000 implements MigrationInterface {
  name = 'Domain1763790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE project_group (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        description text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX project_group_company_idx ON project_group (company_uuid);

      CREATE TABLE project (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        group_uuid uuid REFERENCES project_group(uuid) ON DELETE SET NULL,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        description text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX project_company_idx ON project (company_uuid);
      CREATE INDEX project_group_idx ON project (group_uuid);

      CREATE TABLE idea (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        project_uuid uuid NOT NULL REFERENCES project(uuid),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        content text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'elaborating', 'elaborated')),
        is_container boolean NOT NULL DEFAULT false,
        parent_uuid uuid REFERENCES idea(uuid) ON DELETE SET NULL,
        assignee_type text CHECK (assignee_type IN ('user', 'agent')),
        assignee_uuid uuid,
        assigned_at timestamptz,
        assigned_by_type text CHECK (assigned_by_type IN ('user', 'agent')),
        assigned_by_uuid uuid,
        elaboration_depth text CHECK (elaboration_depth IN ('minimal', 'standard', 'comprehensive')),
        elaboration_status text CHECK (elaboration_status IN ('pending_answers', 'validating', 'resolved')),
        created_by_type text NOT NULL CHECK (created_by_type IN ('user', 'agent')),
        created_by_uuid uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'open') = (assignee_uuid IS NULL))
      );
      CREATE INDEX idea_project_status_idx ON idea (company_uuid, project_uuid, status);
      CREATE INDEX idea_assignee_idx ON idea (company_uuid, assignee_type, assignee_uuid, updated_at);
      CREATE INDEX idea_parent_idx ON idea (parent_uuid);

      CREATE TABLE elaboration_round (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        idea_uuid uuid NOT NULL REFERENCES idea(uuid) ON DELETE CASCADE,
        round_number integer NOT NULL CHECK (round_number BETWEEN 1 AND 10),
        status text NOT NULL CHECK (status IN ('pending_answers', 'answered')),
        depth text NOT NULL CHECK (depth IN ('minimal', 'standard', 'comprehensive')),
        is_appended boolean NOT NULL DEFAULT false,
        created_by_type text NOT NULL,
        created_by_uuid uuid NOT NULL,
        answered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (idea_uuid, round_number)
      );

      CREATE TABLE elaboration_question (
        uuid uuid PRIMARY KEY,
        round_uuid uuid NOT NULL REFERENCES elaboration_round(uuid) ON DELETE CASCADE,
        question_id text NOT NULL CHECK (char_length(question_id) BETWEEN 1 AND 50),
        text text NOT NULL,
        category text NOT NULL CHECK (category IN ('functional', 'non_functional', 'business_context', 'technical_context', 'user_scenario', 'scope')),
        options jsonb NOT NULL,
        required boolean NOT NULL DEFAULT true,
        sort_order integer NOT NULL,
        selected_option_id text,
        custom_text text,
        answered_at timestamptz,
        answered_by_type text,
        answered_by_uuid uuid,
        UNIQUE (round_uuid, question_id)
      );

      CREATE TABLE proposal (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        project_uuid uuid NOT NULL REFERENCES project(uuid),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        description text NOT NULL DEFAULT '',
        input_type text NOT NULL CHECK (input_type IN ('idea', 'document')),
        input_uuids uuid[] NOT NULL,
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'pending', 'approved', 'closed')),
        document_drafts jsonb NOT NULL DEFAULT '[]',
        task_drafts jsonb NOT NULL DEFAULT '[]',
        created_by_type text NOT NULL,
        created_by_uuid uuid NOT NULL,
        submitted_at timestamptz,
        reviewed_by_type text,
        reviewed_by_uuid uuid,
        review_note text,
        reviewed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX proposal_project_status_idx ON proposal (company_uuid, project_uuid, status);
      CREATE INDEX proposal_inputs_gin ON proposal USING gin (input_uuids);

      CREATE TABLE task (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        project_uuid uuid NOT NULL REFERENCES project(uuid),
        proposal_uuid uuid REFERENCES proposal(uuid) ON DELETE SET NULL,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        description text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'assigned', 'in_progress', 'to_verify', 'done', 'closed')),
        priority text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high')),
        priority_rank smallint GENERATED ALWAYS AS (CASE priority WHEN 'high' THEN 3 WHEN 'medium' THEN 2 ELSE 1 END) STORED,
        story_points numeric CHECK (story_points BETWEEN 0 AND 1000),
        assignee_type text CHECK (assignee_type IN ('user', 'agent')),
        assignee_uuid uuid,
        assigned_at timestamptz,
        assigned_by_type text,
        assigned_by_uuid uuid,
        created_by_type text NOT NULL,
        created_by_uuid uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX task_project_status_idx ON task (company_uuid, project_uuid, status);
      CREATE INDEX task_assignee_idx ON task (company_uuid, assignee_type, assignee_uuid, status);
      CREATE INDEX task_proposal_idx ON task (proposal_uuid);

      CREATE TABLE acceptance_criterion (
        uuid uuid PRIMARY KEY,
        task_uuid uuid NOT NULL REFERENCES task(uuid) ON DELETE CASCADE,
        description text NOT NULL CHECK (char_length(description) BETWEEN 1 AND 2000),
        required boolean NOT NULL DEFAULT true,
        sort_order integer NOT NULL,
        dev_status text NOT NULL DEFAULT 'pending' CHECK (dev_status IN ('pending', 'passed', 'failed')),
        dev_evidence text,
        dev_marked_by_type text,
        dev_marked_by_uuid uuid,
        dev_marked_at timestamptz,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'passed', 'failed')),
        evidence text,
        marked_by_type text,
        marked_by_uuid uuid,
        marked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX acceptance_criterion_task_idx ON acceptance_criterion (task_uuid, sort_order);

      CREATE TABLE task_dependency (
        task_uuid uuid NOT NULL REFERENCES task(uuid) ON DELETE CASCADE,
        depends_on_uuid uuid NOT NULL REFERENCES task(uuid) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (task_uuid, depends_on_uuid),
        CHECK (task_uuid <> depends_on_uuid)
      );
      CREATE INDEX task_dependency_depends_on_idx ON task_dependency (depends_on_uuid);

      CREATE TABLE document (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        project_uuid uuid NOT NULL REFERENCES project(uuid),
        type text NOT NULL CHECK (type IN ('prd', 'tech_design', 'adr', 'spec', 'guide', 'report')),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        content text NOT NULL DEFAULT '',
        version integer NOT NULL DEFAULT 1,
        proposal_uuid uuid REFERENCES proposal(uuid) ON DELETE SET NULL,
        created_by_type text NOT NULL,
        created_by_uuid uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX document_project_type_idx ON document (company_uuid, project_uuid, type);
      CREATE INDEX document_proposal_idx ON document (proposal_uuid);

      CREATE TABLE reference (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        target_type text NOT NULL CHECK (target_type IN ('idea', 'proposal', 'task')),
        target_uuid uuid NOT NULL,
        type text NOT NULL CHECK (type IN ('docs', 'repo', 'issue_pr', 'paper_blog')),
        url text NOT NULL CHECK (char_length(url) <= 2048),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        notes text,
        created_by_type text NOT NULL,
        created_by_uuid uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX reference_target_idx ON reference (target_type, target_uuid);

      CREATE TABLE comment (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        target_type text NOT NULL CHECK (target_type IN ('idea', 'proposal', 'task', 'document')),
        target_uuid uuid NOT NULL,
        content text NOT NULL CHECK (char_length(content) BETWEEN 1 AND 20000),
        author_type text NOT NULL,
        author_uuid uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX comment_target_idx ON comment (target_type, target_uuid, created_at);

      CREATE TABLE mention (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        source_type text NOT NULL CHECK (source_type IN ('comment', 'task', 'idea')),
        source_uuid uuid NOT NULL,
        mentioned_type text NOT NULL CHECK (mentioned_type IN ('user', 'agent')),
        mentioned_uuid uuid NOT NULL,
        actor_type text NOT NULL,
        actor_uuid uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX mention_source_idx ON mention (source_type, source_uuid);
      CREATE INDEX mention_target_idx ON mention (mentioned_type, mentioned_uuid);

      CREATE TABLE activity (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        project_uuid uuid NOT NULL,
        target_type text NOT NULL CHECK (target_type IN ('idea', 'proposal', 'task', 'document')),
        target_uuid uuid NOT NULL,
        actor_type text NOT NULL,
        actor_uuid uuid NOT NULL,
        action text NOT NULL,
        value jsonb,
        session_uuid uuid,
        session_name text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX activity_project_idx ON activity (company_uuid, project_uuid, created_at);
      CREATE INDEX activity_target_idx ON activity (target_type, target_uuid);

      CREATE TABLE agent_session (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        agent_uuid uuid NOT NULL REFERENCES agent(uuid),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        description text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed')),
        last_active_at timestamptz NOT NULL DEFAULT now(),
        closed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX agent_session_agent_idx ON agent_session (agent_uuid, status);

      CREATE TABLE session_task_checkin (
        session_uuid uuid NOT NULL REFERENCES agent_session(uuid) ON DELETE CASCADE,
        task_uuid uuid NOT NULL REFERENCES task(uuid) ON DELETE CASCADE,
        checkin_at timestamptz NOT NULL DEFAULT now(),
        checkout_at timestamptz,
        PRIMARY KEY (session_uuid, task_uuid)
      );
      CREATE INDEX session_task_checkin_task_idx ON session_task_checkin (task_uuid);

      CREATE TABLE notification (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        project_uuid uuid NOT NULL,
        project_name text NOT NULL,
        recipient_type text NOT NULL CHECK (recipient_type IN ('user', 'agent')),
        recipient_uuid uuid NOT NULL,
        entity_type text NOT NULL CHECK (entity_type IN ('task', 'idea', 'proposal', 'document')),
        entity_uuid uuid NOT NULL,
        entity_title text NOT NULL,
        action text NOT NULL,
        message text NOT NULL,
        actor_type text NOT NULL CHECK (actor_type IN ('user', 'agent')),
        actor_uuid uuid NOT NULL,
        actor_name text NOT NULL,
        read_at timestamptz,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX notification_recipient_idx ON notification (recipient_type, recipient_uuid, created_at);
      CREATE INDEX notification_unread_idx ON notification (recipient_type, recipient_uuid) WHERE read_at IS NULL AND archived_at IS NULL;
      CREATE INDEX notification_entity_idx ON notification (entity_type, entity_uuid);

      CREATE TABLE notification_preference (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        owner_type text NOT NULL CHECK (owner_type IN ('user', 'agent')),
        owner_uuid uuid NOT NULL,
        task_assigned boolean NOT NULL DEFAULT true,
        task_status_changed boolean NOT NULL DEFAULT true,
        task_verified boolean NOT NULL DEFAULT true,
        task_reopened boolean NOT NULL DEFAULT true,
        proposal_submitted boolean NOT NULL DEFAULT true,
        proposal_approved boolean NOT NULL DEFAULT true,
        proposal_rejected boolean NOT NULL DEFAULT true,
        idea_claimed boolean NOT NULL DEFAULT true,
        comment_added boolean NOT NULL DEFAULT true,
        elaboration_requested boolean NOT NULL DEFAULT true,
        elaboration_answered boolean NOT NULL DEFAULT true,
        mentioned boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (owner_type, owner_uuid)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE notification_preference; DROP TABLE notification; DROP TABLE session_task_checkin; DROP TABLE agent_session;
      DROP TABLE activity; DROP TABLE mention; DROP TABLE comment; DROP TABLE reference; DROP TABLE document;
      DROP TABLE task_dependency; DROP TABLE acceptance_criterion; DROP TABLE task; DROP TABLE proposal;
      DROP TABLE elaboration_question; DROP TABLE elaboration_round; DROP TABLE idea; DROP TABLE project; DROP TABLE project_group;
    `);
  }
}
