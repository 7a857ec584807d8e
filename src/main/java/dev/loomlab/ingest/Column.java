package dev.loomlab.ingest;

import java.util.function.Function;

/**
 * One column of a domain's parent table besides its key: its name, its SQL type (for the COPY
 * staging table), its JDBC type (for nulls) and how a record gives its value.
 */
public record Column<R>(String name, String sqlType, int jdbcType, Function<R, Object> value) {}
