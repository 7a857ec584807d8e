-- People written in chunks (seed D's second domain, its CandidateDataProcessor): the same shape as
-- recruits, a parent and three children keyed by its id, under the seed's table names.
CREATE TABLE candidate (
    id                  bigint      PRIMARY KEY,
    name                text        NOT NULL,
    headline            text,
    location            text,
    years_of_experience integer     CHECK (years_of_experience BETWEEN 0 AND 80),
    desired_salary      integer     CHECK (desired_salary >= 0),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE candidate_skill (
    candidate_id bigint   NOT NULL REFERENCES candidate (id) ON DELETE CASCADE,
    skill        text     NOT NULL,
    level        smallint CHECK (level BETWEEN 1 AND 5),
    PRIMARY KEY (candidate_id, skill)
);

-- The profile text.
CREATE TABLE candidate_description (
    candidate_id bigint PRIMARY KEY REFERENCES candidate (id) ON DELETE CASCADE,
    body         text   NOT NULL
);

-- The dimension is configuration (loomlab.ingest.embedding-dimension), checked at start-up.
CREATE TABLE candidate_skills_embedding (
    candidate_id bigint      PRIMARY KEY REFERENCES candidate (id) ON DELETE CASCADE,
    embedding    vector(384) NOT NULL
);
