from scorekit.summarization.sentences import split_sentences, words


def test_english_rules():
    text = ("Mr. Smith went to Washington. He met the U.S. president on Monday! "
            "\"Was it useful?\" he asked. Prices rose 3.5 percent.\nA new line starts here")
    assert split_sentences(text) == [
        "Mr. Smith went to Washington.", "He met the U.S. president on Monday!",
        "\"Was it useful?\" he asked.", "Prices rose 3.5 percent.", "A new line starts here"]


def test_initials_and_lowercase_continuation():
    assert split_sentences("J. K. Rowling wrote it. e.g. this stays.") == [
        "J. K. Rowling wrote it. e.g. this stays."]


def test_korean_through_kiwi():
    sents = split_sentences("나는 학교에 갔다. 그리고 밥을 먹었다! 좋다")
    assert sents == ["나는 학교에 갔다.", "그리고 밥을 먹었다!", "좋다"]


def test_words_and_empty():
    assert words("  a  b\tc\n") == ["a", "b", "c"]
    assert split_sentences("   \n ") == []
