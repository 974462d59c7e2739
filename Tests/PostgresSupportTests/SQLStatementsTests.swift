import Testing
@testable import PostgresSupport

@Suite(.timeLimit(.minutes(2))) struct SQLStatementsTests {
    @Test func splitsAtTopLevelSemicolonsOnly() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (x text DEFAULT 'semi;colon', "we;ird" int);
            /* block; /* nested; */ still comment; */
            INSERT INTO a (x) VALUES ('it''s; fine');
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            DO $$ BEGIN PERFORM 1; END $$;
            SELECT 1
            """
        let statements = SQLStatements.split(script)
        #expect(statements.count == 5)
        #expect(statements[0].hasSuffix(#"CREATE TABLE a (x text DEFAULT 'semi;colon', "we;ird" int)"#))
        #expect(statements[1].hasSuffix("INSERT INTO a (x) VALUES ('it''s; fine')"))
        #expect(statements[2] == "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql")
        #expect(statements[3] == "DO $$ BEGIN PERFORM 1; END $$")
        #expect(statements[4] == "SELECT 1")
    }

    @Test func blankAndCommentOnlyPiecesAreDropped() {
        #expect(SQLStatements.split(" ; -- nothing\n ;\n/* x */;").isEmpty)
    }
}
