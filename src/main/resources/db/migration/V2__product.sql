-- The product catalog of the product lookup (seed C): 10,000 rows, the same on every database.
CREATE TABLE product (
    id          bigint         PRIMARY KEY,
    name        text           NOT NULL,
    category    text           NOT NULL,
    price       numeric(10, 2) NOT NULL CHECK (price > 0),
    description text           NOT NULL
);

INSERT INTO product (id, name, category, price, description)
SELECT i,
       'Product ' || lpad(i::text, 5, '0'),
       (ARRAY ['books', 'games', 'garden', 'kitchen', 'music', 'outdoor', 'tools', 'toys'])[1 + i % 8],
       round(5 + ((i * 7919) % 99500) / 100.0, 2),
       'Deterministic catalog entry number ' || i
FROM generate_series(1, 10000) AS s(i);
