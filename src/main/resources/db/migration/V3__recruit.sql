-- Job postings written in chunks (seed D): a parent table and three children keyed by its id.
-- ON DELETE CASCADE keeps children from outliving their parent; the writes never delete parents.
CREATE TABLE recruit (
    id          bigint      PRIMARY KEY,
    company     text        NOT NULL,
    title       text        NOT NULL,
    location    text,
    salary_min  integer     CHECK (salary_min >= 0),
    salary_max  integer     CHECK (salary_max >= 0),
    posted_at   timestamptz,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CHECK (salary_min IS NULL OR salary_max IS NULL OR salary_min <= salary_max)
);

CREATE TABLE recruit_skill (
    recruit_id bigint   NOT NULL REFERENCES recruit (id) ON DELETE CASCADE,
    skill      text     NOT NULL,
    level      smallint CHECK (level BETWEEN 1 AND 5),
    PRIMARY KEY (recruit_id, skill)
);

CREATE TABLE recruit_description (
    recruit_id bigint PRIMARY KEY REFERENCES recruit (id) ON DELETE CASCADE,
    body       text   NOT NULL
);

-- The dimension is configuration too (loomlab.recruits.embedding-dimension), checked against
-- this column at start-up.
CREATE TABLE recruit_skill_embedding (
    recruit_id bigint      PRIMARY KEY REFERENCES recruit (id) ON DELETE CASCADE,
    embedding  vector(384) NOT NULL
);
